# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Runs `thymio-road` commands in forked processes of one interpreter that imported the CLI once.

A fresh `python -m thymio_road.cli` spends 2-4 s importing numpy, scipy, numba and rosbags
before it refuses a flag; test_bad_inputs.py has 150 such cases. This server imports the
command's modules once and forks a child per case: each child is a process of its own (its own
exit code, stdout and stderr, working folder and signal handlers, killed after a timeout) that
runs the same `main(argv)` as the console script, from a single-threaded parent.

Protocol (one JSON line each way): {"args", "cwd", "out", "err", "timeout"} →
{"code", "timed_out"}; `out` and `err` are files the child's stdout and stderr go to.
"""
from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback


def _child(request: dict) -> None:
    os.chdir(request['cwd'])
    for fd, name in ((1, 'out'), (2, 'err')):
        target = os.open(request[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(target, fd)
        os.close(target)
    sys.stdout = open(1, 'w', encoding='utf-8', closefd=False)
    sys.stderr = open(2, 'w', encoding='utf-8', closefd=False)
    os.close(0)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    from thymio_road.cli.main import main
    try:
        code = main(request['args'])
    except SystemExit as exc:  # argparse's exit, as `sys.exit(main())` would give it
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, int) and exc.code is not None:
            print(exc.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - what the interpreter would print, then exit 1
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


def serve() -> None:
    # and what the commands refusing late import first (each child would import them anew)
    import swarm_comm.experiments  # noqa: F401
    import thymio_road.analysis  # noqa: F401
    import thymio_road.cli.main  # noqa: F401 - the command's imports, once
    import thymio_road.experiments.priority  # noqa: F401
    import thymio_road.runtime.run  # noqa: F401
    import thymio_road.scenario  # noqa: F401 - what most commands load next
    print('ready', flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                _child(request)
            finally:
                os._exit(70)
        deadline, timed_out = time.monotonic() + request.get('timeout', 60), False
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
                timed_out = True
                break
            time.sleep(0.005)
        code = os.waitstatus_to_exitcode(status)
        print(json.dumps({'code': code, 'timed_out': timed_out}), flush=True)


if __name__ == '__main__':
    serve()
