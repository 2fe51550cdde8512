# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""Simulated-time executor: timers, topics and services of every node in one process.

Determinism: time is an integer number of nanoseconds; timers fire in (time, creation order);
a published message is delivered after the current callback returns, in publication order,
to subscriptions in creation order. The same graph and seed therefore give the same run.
A direct call (:meth:`Executor.defer`, the fast path of runtime/run.py) takes a message's place
in that queue, so it runs exactly when the message it replaces would have been delivered.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
import heapq
from typing import Any, Callable

from thymio_road.nodes.msgs import QoS


@dataclass(eq=False)
class Subscription:
    topic: str
    callback: Callable[[Any], None]
    qos: QoS


@dataclass(eq=False)
class Topic:
    """A topic with its type, its subscriptions and, when latched, its last messages."""

    name: str
    msg_type: Any
    qos: QoS
    subscriptions: list[Subscription] = field(default_factory=list)
    latched: deque = field(default_factory=deque)
    recorded: bool = False
    #: Simulated ns between the recorded messages the recorder keeps (0: all of them).
    record_period: int = 0
    publishers: int = 0


@dataclass(eq=False)
class Timer:
    period_ns: int
    callback: Callable[[], None]
    next_ns: int
    cancelled: bool = False

    def cancel(self) -> None:
        self.cancelled = True

    def is_canceled(self) -> bool:
        return self.cancelled


class TopicTypeError(TypeError):
    """Two nodes disagree on a topic's type."""


class Executor:
    """Runs the callbacks of all embedded nodes on one simulated clock."""

    def __init__(self, recorder: Any | None = None) -> None:
        self.now_ns = 0
        self.topics: dict[str, Topic] = {}
        self.services: dict[str, tuple[Any, Callable]] = {}
        self.recorder = recorder
        self._timers: list[tuple[int, int, Timer]] = []
        self._seq = 0
        #: Deliveries due after the current callback: (function, arguments), a subscription's
        #: callback with (message,) or a direct call with its arguments.
        self._pending: deque[tuple[Callable[..., None], tuple]] = deque()
        #: Called with a topic's name when it gains a subscription or a publisher.
        self.watchers: list[Callable[[str], None]] = []

    # --- topics --------------------------------------------------------------------------------
    def topic(self, name: str, msg_type: Any, qos: QoS) -> Topic:
        topic = self.topics.get(name)
        if topic is None:
            topic = self.topics[name] = Topic(name, msg_type, qos)
        elif topic.msg_type is not msg_type:
            raise TopicTypeError(f'topic {name} is used with two types: '
                                 f'{getattr(topic.msg_type, "__name__", topic.msg_type)} and '
                                 f'{getattr(msg_type, "__name__", msg_type)}')
        return topic

    def advertise(self, name: str, msg_type: Any, qos: QoS) -> Topic:
        topic = self.topic(name, msg_type, qos)
        topic.qos = qos
        topic.publishers += 1
        if self.recorder is not None and not topic.recorded and self.recorder.records(name):
            self.recorder.add_topic(name, msg_type, qos)
            topic.recorded = True
            period = getattr(self.recorder, 'period', None)
            topic.record_period = period(name) if period is not None else 0
        for watcher in self.watchers:
            watcher(name)
        return topic

    def subscribe(self, name: str, msg_type: Any, callback: Callable, qos: QoS) -> Subscription:
        topic = self.topic(name, msg_type, qos)
        sub = Subscription(name, callback, qos)
        topic.subscriptions.append(sub)
        for msg in topic.latched:
            self._pending.append((callback, (msg,)))
        for watcher in self.watchers:
            watcher(name)
        return sub

    def publish(self, topic: Topic, msg: Any) -> None:
        if topic.qos.transient_local:
            topic.latched.append(msg)
            while len(topic.latched) > topic.qos.depth:
                topic.latched.popleft()
        if topic.recorded:
            self.recorder.write(topic.name, msg, self.now_ns)
        for sub in topic.subscriptions:
            self._pending.append((sub.callback, (msg,)))

    def deferred(self, function: Callable[..., None]) -> Callable[..., None]:
        """`function` called with the given arguments when a message published now would be delivered."""
        pending = self._pending

        def defer(*args: Any) -> None:
            pending.append((function, args))
        return defer

    def subscriber_count(self, topic: Topic) -> int:
        return len(topic.subscriptions) + (1 if topic.recorded else 0)

    # --- services ------------------------------------------------------------------------------
    def add_service(self, name: str, srv_type: Any, callback: Callable) -> None:
        if name in self.services:
            raise ValueError(f'service {name} is already provided')
        self.services[name] = (srv_type, callback)

    def call(self, name: str, request: Any = None) -> Any:
        """Call a service synchronously (between callbacks), delivering what it publishes."""
        if name not in self.services:
            raise KeyError(f'no service {name}; known: {", ".join(sorted(self.services)) or "none"}')
        srv_type, callback = self.services[name]
        response = callback(request if request is not None else srv_type.Request(), srv_type.Response())
        self._drain()
        return response

    # --- time ----------------------------------------------------------------------------------
    def add_timer(self, period_ns: int, callback: Callable[[], None]) -> Timer:
        if period_ns <= 0:
            raise ValueError(f'timer period must be positive, got {period_ns} ns')
        timer = Timer(period_ns, callback, self.now_ns + period_ns)
        self._push(timer)
        return timer

    def _push(self, timer: Timer) -> None:
        self._seq += 1
        heapq.heappush(self._timers, (timer.next_ns, self._seq, timer))

    def run_until(self, end_ns: int, on_time: Callable[[int], None] | None = None) -> None:
        """Fire every timer due up to and including end_ns."""
        self._drain()
        timers = self._timers
        while timers and timers[0][0] <= end_ns:
            # The timer stays at the heap's top while it runs (a timer created meanwhile is due
            # later) and is then re-armed in place: heapreplace, one sift instead of two.
            due, _, timer = timers[0]
            if timer.cancelled:
                heapq.heappop(timers)
                continue
            try:
                if due != self.now_ns:
                    self.now_ns = due
                    if on_time is not None:
                        on_time(due)
                timer.callback()
                self._drain()
            except BaseException:
                heapq.heappop(timers)
                raise
            timer.next_ns = due + timer.period_ns
            if timer.cancelled:
                heapq.heappop(timers)
            else:
                self._seq += 1
                heapq.heapreplace(timers, (timer.next_ns, self._seq, timer))
        self.now_ns = max(self.now_ns, end_ns)

    def _drain(self) -> None:
        pending = self._pending
        while pending:
            function, args = pending.popleft()
            function(*args)
