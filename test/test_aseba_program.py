# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The Aseba program the driver loads is valid Aseba for the Thymio II.

Neither tdmclient nor any PyPI/Debian package ships an offline Aseba compiler (tdmclient's
``atranspiler`` goes Python → Aseba, and its ``Server`` does not compile), so this file holds
a small, strict checker of the Aseba language: tokens and comments, declarations, statements
(if/elseif/else, when, while, for … step, onevent, sub/callsub, call, emit, return),
expressions with Aseba's operators, and the Thymio's names — its variables with their sizes,
its local events and its native functions with their argument counts (the firmware's
description, as of firmware 14). It checks sizes: assignments, slices, constant indices,
``emit`` payloads against the declared events and native-function arrays.

The checker is itself tested: it accepts Aseba written by an independent producer
(tdmclient's transpiler) and rejects a list of broken variants of the driver program.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
import re

import pytest

from thymio_road.real import driver

ROOT = Path(__file__).resolve().parent.parent

# --- The Thymio II's description (firmware 14) ------------------------------------------------
THYMIO_VARIABLES = {
    '_id': 1, 'event.source': 1, 'event.args': 32, '_fwversion': 2, '_productId': 1,
    'buttons._raw': 5, 'button.backward': 1, 'button.left': 1, 'button.center': 1,
    'button.forward': 1, 'button.right': 1, 'buttons._mean': 5, 'buttons._noise': 5,
    'prox.horizontal': 7, 'prox.comm.rx._payloads': 7, 'prox.comm.rx._intensities': 7,
    'prox.comm.rx': 1, 'prox.comm.tx': 1, 'prox.ground.ambiant': 2, 'prox.ground.reflected': 2,
    'prox.ground.delta': 2, 'motor.left.target': 1, 'motor.right.target': 1, '_vbat': 2, '_imot': 2,
    'motor.left.speed': 1, 'motor.right.speed': 1, 'motor.left.pwm': 1, 'motor.right.pwm': 1,
    '_integrator': 2, 'acc': 3, 'leds.top': 3, 'leds.bottom.left': 3, 'leds.bottom.right': 3,
    'leds.circle': 8, 'temperature': 1, 'rc5.address': 1, 'rc5.command': 1, 'mic.intensity': 1,
    'mic.threshold': 1, 'mic._mean': 1, 'timer.period': 2, 'acc._tap': 1, 'sd.present': 1,
}
THYMIO_EVENTS = {'button.backward', 'button.left', 'button.center', 'button.forward', 'button.right',
                 'buttons', 'prox', 'prox.comm', 'tap', 'acc', 'mic', 'sound.finished', 'temperature',
                 'rc5', 'motor', 'timer0', 'timer1'}
#: Native functions: argument sizes (1 scalar, N fixed array, -1/-2 arrays of one common size).
NATIVES = {
    'math.copy': (-1, -1), 'math.fill': (-1, 1), 'math.addscalar': (-1, -1, 1),
    'math.add': (-1, -1, -1), 'math.sub': (-1, -1, -1), 'math.mul': (-1, -1, -1),
    'math.div': (-1, -1, -1), 'math.min': (-1, -1, -1), 'math.max': (-1, -1, -1),
    'math.clamp': (-1, -1, -1, -1), 'math.dot': (1, -1, -1, 1), 'math.stat': (-1, 1, 1, 1),
    'math.argbounds': (-1, 1, 1), 'math.sort': (-1,), 'math.muldiv': (-1, -1, -1, -1),
    'math.atan2': (-1, -1, -1), 'math.sin': (-1, -1), 'math.cos': (-1, -1), 'math.rot2': (2, 2, 1),
    'math.sqrt': (-1, -1), 'math.rand': (-1,),
    '_leds.set': (1, 1), 'sound.record': (1,), 'sound.play': (1,), 'sound.replay': (1,),
    'sound.system': (1,), 'leds.circle': (1,) * 8, 'leds.top': (1, 1, 1), 'leds.bottom.left': (1, 1, 1),
    'leds.bottom.right': (1, 1, 1), 'sound.freq': (1, 1), 'leds.buttons': (1, 1, 1, 1),
    'leds.prox.h': (1,) * 8, 'leds.prox.v': (1, 1), 'leds.rc': (1,), 'leds.sound': (1,),
    'leds.temperature': (1, 1), 'sound.wave': (142,), 'prox.comm.enable': (1,),
    'sd.open': (1, 1), 'sd.write': (-1, 1), 'sd.read': (-1, 1), 'sd.seek': (1, 1),
    '_rf.nodeid': (1,), '_poweroff': (), '_system.reboot': (), '_system.settings.read': (1, 1),
    '_system.settings.write': (1, 1), '_system.settings.flash': (),
}
KEYWORDS = {'var', 'onevent', 'sub', 'callsub', 'call', 'emit', 'if', 'then', 'elseif', 'else', 'end',
            'while', 'do', 'for', 'in', 'step', 'when', 'return', 'and', 'or', 'not', 'abs'}
INT16 = (-32768, 32767)


class AsebaError(Exception):
    pass


@dataclass
class Token:
    kind: str  # 'num', 'id', 'kw', 'op', 'eof'
    text: str
    line: int
    value: int = 0


_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r]+) | (?P<nl>\n) | (?P<block>\#\*.*?\*\#) | (?P<comment>\#[^\n]*) |
    (?P<num>0x[0-9a-fA-F]+|0b[01]+|[0-9]+) | (?P<id>[A-Za-z_][A-Za-z0-9_.]*) |
    (?P<op>==|!=|<=|>=|<<|>>|\+\+|--|\+=|-=|\*=|/=|%=|[-+*/%<>=&|^~()\[\],:])
""", re.VERBOSE | re.DOTALL)


def tokenize(source: str) -> list[Token]:
    tokens, line, pos = [], 1, 0
    while pos < len(source):
        match = _TOKEN.match(source, pos)
        if match is None:
            raise AsebaError(f'line {line}: unexpected character {source[pos]!r}')
        kind, text = match.lastgroup, match.group()
        if kind == 'num':
            value = int(text, 16) if text.startswith('0x') else int(text[2:], 2) if text.startswith('0b') \
                else int(text)
            if value > 65535:
                raise AsebaError(f'line {line}: number {text} does not fit 16 bits')
            tokens.append(Token('num', text, line, value))
        elif kind == 'id':
            tokens.append(Token('kw' if text in KEYWORDS else 'id', text, line))
        elif kind == 'op':
            tokens.append(Token('op', text, line))
        line += text.count('\n')
        pos = match.end()
    tokens.append(Token('eof', '', line))
    return tokens


class Checker:
    """Recursive-descent parser of Aseba that checks names and sizes as it goes."""

    def __init__(self, source: str, events: dict[str, int]) -> None:
        self.tokens = tokenize(source)
        self.i = 0
        self.events = events
        self.vars: dict[str, int] = {}
        self.subs: set[str] = set()
        self.handlers: set[str] = set()
        self.emitted: set[str] = set()
        self.calls: set[str] = set()

    # --- token helpers --------------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def fail(self, message: str, token: Token | None = None) -> None:
        raise AsebaError(f'line {(token or self.tok).line}: {message}')

    def take(self, kind: str, text: str | None = None) -> Token:
        tok = self.tok
        if tok.kind != kind or (text is not None and tok.text != text):
            self.fail(f'expected {text or kind}, got {tok.text or "end of program"!r}')
        self.i += 1
        return tok

    def at(self, kind: str, *texts: str) -> bool:
        return self.tok.kind == kind and (not texts or self.tok.text in texts)

    # --- program ------------------------------------------------------------------------------------
    def check(self) -> 'Checker':
        while self.at('kw', 'var'):
            self.declaration()
        self.block(top=True)
        while not self.at('eof'):
            if self.at('kw', 'onevent'):
                self.i += 1
                name = self.take('id')
                if name.text not in THYMIO_EVENTS and name.text not in self.events:
                    self.fail(f'onevent {name.text}: no such local or declared event', name)
                if name.text in self.handlers:
                    self.fail(f'onevent {name.text} defined twice', name)
                self.handlers.add(name.text)
            elif self.at('kw', 'sub'):
                self.i += 1
                name = self.take('id')
                if name.text in self.subs:
                    self.fail(f'sub {name.text} defined twice', name)
                self.subs.add(name.text)
            else:
                self.fail(f'expected onevent or sub, got {self.tok.text!r}')
            self.block(top=True)
        return self

    def declaration(self) -> None:
        self.take('kw', 'var')
        name = self.take('id')
        if name.text in self.vars or name.text in THYMIO_VARIABLES:
            self.fail(f'variable {name.text} declared twice (or hides a Thymio variable)', name)
        size = None
        if self.at('op', '['):
            self.i += 1
            if self.at('num'):
                size = self.take('num').value
                if size < 1:
                    self.fail(f'array {name.text} must have a size >= 1', name)
            self.take('op', ']')
        if self.at('op', '='):
            self.i += 1
            init = self.expression()
            if size is None:
                size = init
            elif init != size:
                self.fail(f'{name.text}[{size}] initialised with {init} values', name)
        self.vars[name.text] = 1 if size is None else size

    def block(self, top: bool = False, ends: tuple[str, ...] = ('end',)) -> None:
        while True:
            if self.at('eof') or (top and self.at('kw', 'onevent', 'sub')) or \
                    (not top and self.at('kw', *ends)):
                if not top and self.at('eof'):
                    self.fail(f"missing '{ends[0]}' before the end of the program")
                return
            if not top and self.at('kw', 'onevent', 'sub'):
                self.fail(f"missing '{ends[0]}' before {self.tok.text}")
            self.statement()

    def statement(self) -> None:
        tok = self.tok
        if tok.kind == 'id':
            self.assignment()
        elif tok.text == 'var':
            self.fail('var declarations must come before any other statement')
        elif tok.text in ('if', 'when'):
            self.i += 1
            self.condition()
            self.take('kw', 'then' if tok.text == 'if' else 'do')
            self.block(ends=('end', 'elseif', 'else') if tok.text == 'if' else ('end',))
            while tok.text == 'if' and self.at('kw', 'elseif'):
                self.i += 1
                self.condition()
                self.take('kw', 'then')
                self.block(ends=('end', 'elseif', 'else'))
            if tok.text == 'if' and self.at('kw', 'else'):
                self.i += 1
                self.block()
            self.take('kw', 'end')
        elif tok.text == 'while':
            self.i += 1
            self.condition()
            self.take('kw', 'do')
            self.block()
            self.take('kw', 'end')
        elif tok.text == 'for':
            self.i += 1
            var = self.take('id')
            self.variable_size(var)
            self.take('kw', 'in')
            self.scalar(self.expression(), 'for bound')
            self.take('op', ':')
            self.scalar(self.expression(), 'for bound')
            if self.at('kw', 'step'):
                self.i += 1
                self.scalar(self.expression(), 'for step')
            self.take('kw', 'do')
            self.block()
            self.take('kw', 'end')
        elif tok.text == 'call':
            self.i += 1
            self.native_call()
        elif tok.text == 'callsub':
            self.i += 1
            name = self.take('id')
            if name.text not in self.subs:
                self.fail(f'callsub {name.text}: no sub of that name defined before', name)
        elif tok.text == 'emit':
            self.i += 1
            name = self.take('id')
            size = self.events.get(name.text)
            if size is None:
                self.fail(f'emit {name.text}: not a declared event', name)
            has_arg = self.tok.line == name.line and (self.at('id') or self.at('op', '['))
            given = self.expression() if has_arg else 0
            if given != size:
                self.fail(f'emit {name.text}: the event has {size} values, {given} given', name)
            self.emitted.add(name.text)
        elif tok.text == 'return':
            self.i += 1
        else:
            self.fail(f'unexpected {tok.text or "end of program"!r}')

    def assignment(self) -> None:
        name = self.tok
        size = self.lvalue()
        if self.at('op', '++', '--'):
            self.i += 1
            self.scalar(size, f'{name.text} {self.tokens[self.i - 1].text}')
            return
        op = self.take('op')
        if op.text not in ('=', '+=', '-=', '*=', '/=', '%='):
            self.fail(f'expected an assignment after {name.text}, got {op.text!r}', op)
        value = self.expression()
        if value != size:
            self.fail(f'assigning {value} value(s) to {name.text} of size {size}', name)

    def lvalue(self) -> int:
        return self.indexed(self.take('id'))

    def variable_size(self, name: Token) -> int:
        size = self.vars.get(name.text, THYMIO_VARIABLES.get(name.text))
        if size is None:
            self.fail(f'unknown variable {name.text}', name)
        return size

    def indexed(self, name: Token) -> int:
        size = self.variable_size(name)
        if not self.at('op', '['):
            return size
        self.i += 1
        if self.at('num') and self.tokens[self.i + 1].text == ':':
            first = self.take('num').value
            self.take('op', ':')
            last = self.take('num').value
            self.take('op', ']')
            if not 0 <= first <= last < size:
                self.fail(f'slice {name.text}[{first}:{last}] outside 0..{size - 1}', name)
            return last - first + 1
        start = self.i
        self.scalar(self.expression(), 'index')
        if self.i == start + 1 and self.tokens[start].kind == 'num' and self.tokens[start].value >= size:
            self.fail(f'index {name.text}[{self.tokens[start].value}] outside 0..{size - 1}', name)
        self.take('op', ']')
        return 1

    def native_call(self) -> None:
        name = self.take('id')
        spec = NATIVES.get(name.text)
        if spec is None:
            self.fail(f'call {name.text}: no such native function', name)
        self.take('op', '(')
        sizes = []
        if not self.at('op', ')'):
            sizes.append(self.expression())
            while self.at('op', ','):
                self.i += 1
                sizes.append(self.expression())
        self.take('op', ')')
        if len(sizes) != len(spec):
            self.fail(f'call {name.text}: takes {len(spec)} argument(s), {len(sizes)} given', name)
        common: dict[int, int] = {}
        for k, (want, got) in enumerate(zip(spec, sizes)):
            if want > 0 and got != want:
                self.fail(f'call {name.text}: argument {k + 1} must have size {want}, got {got}', name)
            if want < 0 and common.setdefault(want, got) != got:
                self.fail(f'call {name.text}: array arguments must have the same size', name)
        self.calls.add(name.text)

    # --- expressions ---------------------------------------------------------------------------------
    def scalar(self, size: int, what: str) -> None:
        if size != 1:
            self.fail(f'{what} must be a single value, got {size}')

    def condition(self) -> None:
        self.scalar(self.expression(), 'condition')

    _BINARY = [('kw', ('or',)), ('kw', ('and',)), None,
               ('op', ('==', '!=', '<', '<=', '>', '>=')), ('op', ('|',)), ('op', ('^',)),
               ('op', ('&',)), ('op', ('<<', '>>')), ('op', ('+', '-')), ('op', ('*', '/', '%'))]

    def expression(self, level: int = 0) -> int:
        if level == len(self._BINARY):
            return self.unary()
        if self._BINARY[level] is None:  # 'not' binds looser than comparisons
            if self.at('kw', 'not'):
                self.i += 1
                size = self.expression(level)
                self.scalar(size, 'operand of not')
                return 1
            return self.expression(level + 1)
        kind, ops = self._BINARY[level]
        size = self.expression(level + 1)
        while self.at(kind, *ops):
            op = self.take(kind)
            right = self.expression(level + 1)
            if size != 1 or right != 1:
                self.fail(f'operator {op.text} takes single values, got sizes {size} and {right}', op)
        return size

    def unary(self) -> int:
        if self.at('op', '-', '~') or self.at('kw', 'abs'):
            op = self.take(self.tok.kind)
            size = self.unary()
            self.scalar(size, f'operand of {op.text}')
            return 1
        if self.at('num'):
            self.i += 1
            return 1
        if self.at('id'):
            return self.indexed(self.take('id'))
        if self.at('op', '('):
            self.i += 1
            size = self.expression()
            self.take('op', ')')
            return size
        if self.at('op', '['):
            self.i += 1
            size = self.expression()
            while self.at('op', ','):
                self.i += 1
                size += self.expression()
            self.take('op', ']')
            return size
        self.fail(f'expected a value, got {self.tok.text or "end of program"!r}')
        return 0


def check(source: str, events: dict[str, int]) -> Checker:
    return Checker(source, events).check()


# --- tests ------------------------------------------------------------------------------------------------

@pytest.fixture(scope='module')
def program() -> driver.AsebaProgram:
    return driver.load_program()


def test_driver_program_is_valid_aseba(program):
    result = check(program.source, program.events)
    # Robot → host: the two events the driver parses; host → robot: a handler for each command.
    assert result.emitted == {driver.EVENT_SENSORS, driver.EVENT_COMM_RX}
    assert {driver.EVENT_SET_MOTORS, driver.EVENT_SET_COMM_TX, driver.EVENT_ENABLE_COMM,
            driver.EVENT_SET_LED_TOP, 'prox', 'prox.comm', 'timer0'} == result.handlers
    assert {'prox.comm.enable', 'leds.top'} <= result.calls


def test_program_events_are_the_drivers(program):
    assert program.events == driver.EVENTS
    assert program.path == driver.program_path()


def test_program_watchdog_matches_the_driver(program):
    """timer0 every `period` ms and a limit of N ticks make the robot's ROBOT_WATCHDOG."""
    period = int(re.search(r'timer\.period\[0\]\s*=\s*(\d+)', program.source).group(1))
    limit = {int(n) for n in re.findall(r'watchdog\s*(?:<|>=)\s*(\d+)', program.source)}
    assert len(limit) == 1
    assert period * limit.pop() / 1000 == pytest.approx(driver.ROBOT_WATCHDOG)
    assert driver.DriverParams().keepalive < driver.ROBOT_WATCHDOG


def test_checker_accepts_aseba_from_tdmclients_transpiler():
    """An independent producer of Aseba: tdmclient's Python → Aseba transpiler."""
    from tdmclient.atranspiler import ATranspiler
    import tdmclient.module_thymio
    source = """
x = 0
s = [0, 0, 0, 0, 0, 0, 0]
@onevent
def prox():
    global x, s
    x = prox_horizontal[2] - prox_ground_delta[0]
    if x > 300 and not x == 5:
        motor_left_target = 100
    elif x < -300:
        motor_left_target = -100 // 3
    else:
        motor_left_target = abs(x) % 7
    for i in range(7):
        s[i] = prox_horizontal[i]
    emit("pair", x, 2)
    nf_leds_top(32, 0, 0)
    leds_top = [0, 32, 0]
@onevent
def timer0():
    global x
    while x > 0:
        x -= 1
"""
    transpiler = ATranspiler()
    transpiler.modules = {**transpiler.modules, 'thymio': tdmclient.module_thymio.ModuleThymio(transpiler)}
    transpiler.set_preamble('from thymio import *\n')
    transpiler.set_source(source)
    transpiler.transpile()
    output = transpiler.get_output()
    result = check(output, dict(transpiler.events_out))
    assert result.handlers == {'prox', 'timer0'} and 'leds.top' in result.calls


BROKEN = [
    ('unknown variable', 'sensors[9] = motor.left.speed', 'sensors[9] = motor.left.sped'),
    ('emit size', 'emit ros_sensors sensors', 'emit ros_sensors comm'),
    ('undeclared event', 'emit ros_comm_rx comm', 'emit ros_comm comm'),
    ('slice size', 'sensors[7:8] = prox.ground.delta', 'sensors[7:9] = prox.ground.delta'),
    ('slice bounds', 'comm[8:14] = prox.comm.rx._intensities', 'comm[9:15] = prox.comm.rx._intensities'),
    ('index bounds', 'sensors[10] = motor.right.speed', 'sensors[11] = motor.right.speed'),
    ('native name', 'call leds.top(event.args[0]', 'call leds.tops(event.args[0]'),
    ('native arity', 'call prox.comm.enable(1)', 'call prox.comm.enable(1, 0)'),
    ('native array size', 'call math.fill(prox.comm.rx._payloads, 0)', 'call math.fill(prox.comm.rx._payloads, comm)'),
    ('missing end', '\t\tmotor.right.target = 0\n\tend', '\t\tmotor.right.target = 0\n'),
    ('missing end at eof', 'call leds.top(event.args[0], event.args[1], event.args[2])',
     'if 1 == 1 then\n call leds.top(event.args[0], event.args[1], event.args[2])'),
    ('missing then', 'if watchdog < 10 then', 'if watchdog < 10'),
    ('unknown local event', 'onevent timer0', 'onevent timer2'),
    ('scalar from array', 'prox.comm.tx = event.args[0]', 'prox.comm.tx = event.args'),
    ('late var', 'timer.period[0] = 100', 'timer.period[0] = 100\nvar late'),
    ('bad character', 'watchdog = 0\n\nonevent timer0', 'watchdog = 0 $\n\nonevent timer0'),
]


@pytest.mark.parametrize('what,good,bad', BROKEN, ids=[b[0] for b in BROKEN])
def test_checker_rejects_broken_programs(program, what, good, bad):
    assert good in program.source, what
    with pytest.raises(AsebaError, match=r'^line \d+: '):
        check(program.source.replace(good, bad, 1), program.events)


def test_program_is_installed_with_the_package():
    """setup.py installs the program where driver.program_path() looks after `pip install`/colcon."""
    setup = (ROOT / 'setup.py').read_text()
    assert "(f'share/{PACKAGE}/aseba', glob('thymio_road/real/aseba/*.aesl'))" in setup
