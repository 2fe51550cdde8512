# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The rclpy API subset that thymio_road's nodes use, implemented on the embedded executor.

Node classes receive a node handle: an ``rclpy.node.Node`` on ROS 2, an :class:`EmbeddedNode`
here. The subset, all present in Humble and Jazzy with the same signatures:

- ``get_name()``, ``get_namespace()``, ``get_logger()``, ``get_clock().now()``
- ``declare_parameter(name, default, descriptor)``, ``get_parameter(name).value``: typed as in
  rclpy (an override of another type than the default's is refused, unless the descriptor has
  ``dynamic_typing``)
- ``create_publisher(type, topic, qos)`` → ``publish(msg)``, ``get_subscription_count()``
- ``count_publishers(topic)``
- ``create_subscription(type, topic, callback, qos)``
- ``create_timer(period_s, callback)``
- ``create_service(type, name, callback)``
- ``destroy_node()``
"""
from __future__ import annotations

from dataclasses import dataclass
import logging
from typing import Any, Callable

from thymio_road.nodes import msgs
from thymio_road.runtime.executor import Executor, Topic


class ParameterNotDeclaredError(KeyError):
    pass


class ParameterAlreadyDeclaredError(ValueError):
    pass


class InvalidParameterTypeError(TypeError):
    """rclpy's InvalidParameterTypeException: an override whose type is not the default's."""


def parameter_type(value: Any) -> str:
    """The rclpy Parameter.Type of a Python value (bool is not an integer, int is not a double)."""
    if value is None:
        return 'NOT_SET'
    for kind, name in ((bool, 'BOOL'), (int, 'INTEGER'), (float, 'DOUBLE'), (str, 'STRING'),
                       (bytes, 'BYTE_ARRAY')):
        if isinstance(value, kind):
            return name
    if isinstance(value, (list, tuple)) and value:
        return parameter_type(value[0]) + '_ARRAY'
    raise TypeError(f'unsupported parameter value {value!r}')


@dataclass
class Parameter:
    name: str
    value: Any


@dataclass(frozen=True)
class SimTime:
    nanoseconds: int

    def to_msg(self) -> Any:
        return msgs.Time(sec=self.nanoseconds // 1_000_000_000, nanosec=self.nanoseconds % 1_000_000_000)


class SimClock:
    def __init__(self, executor: Executor) -> None:
        self._executor = executor

    def now(self) -> SimTime:
        return SimTime(self._executor.now_ns)


class Publisher:
    def __init__(self, executor: Executor, topic: Topic) -> None:
        self._executor, self._topic = executor, topic
        self.topic_name = topic.name

    def publish(self, msg: Any) -> None:
        self._executor.publish(self._topic, msg)

    def get_subscription_count(self) -> int:
        """Executor.subscriber_count, inlined (asked a dozen times per robot event); 0 when the
        recorder is the only reader and drops a message published now (its period), so that the
        node does not build it.
        """
        topic = self._topic
        if topic.record_period and not topic.subscriptions and self._executor.now_ns % topic.record_period:
            return 0
        return len(topic.subscriptions) + (1 if topic.recorded else 0)


def resolve_name(name: str, namespace: str, node_name: str) -> str:
    """ROS 2 name resolution: absolute, private (~) or relative to the namespace."""
    if name.startswith('/'):
        return name
    ns = namespace.rstrip('/')
    if name.startswith('~'):
        return f'{ns}/{node_name}{name[1:]}'
    return f'{ns}/{name}'


class EmbeddedNode:
    """A node of the embedded runtime; parameters come from the scenario's node spec."""

    def __init__(self, executor: Executor, name: str, namespace: str = '/',
                 parameters: dict[str, Any] | None = None,
                 remappings: dict[str, str] | None = None) -> None:
        self.executor = executor
        self._name = name
        self._namespace = namespace if namespace.startswith('/') else '/' + namespace
        self._overrides = dict(parameters or {})
        self._remappings = dict(remappings or {})
        self._parameters: dict[str, Parameter] = {}
        self._clock = SimClock(executor)
        self._logger = logging.getLogger(f'{self._namespace.strip("/").replace("/", ".")}.{name}'.strip('.'))
        self._timers: list = []

    def get_name(self) -> str:
        return self._name

    def get_namespace(self) -> str:
        return self._namespace

    def get_logger(self) -> logging.Logger:
        return self._logger

    def get_clock(self) -> SimClock:
        return self._clock

    def declare_parameter(self, name: str, value: Any = None, descriptor: Any = None,
                          ignore_override: bool = False) -> Parameter:
        if name in self._parameters:
            raise ParameterAlreadyDeclaredError(f'parameter {name} is already declared')
        given = value if ignore_override else self._overrides.get(name, value)
        dynamic = bool(getattr(descriptor, 'dynamic_typing', False))
        if not dynamic and value is not None and parameter_type(given) != parameter_type(value):
            raise InvalidParameterTypeError(
                f"Trying to set parameter '{name}' to '{given}' of type '{parameter_type(given)}', "
                f"expecting type '{parameter_type(value)}'")
        param = Parameter(name, given)
        self._parameters[name] = param
        return param

    def get_parameter(self, name: str) -> Parameter:
        if name not in self._parameters:
            raise ParameterNotDeclaredError(name)
        return self._parameters[name]

    def resolve(self, name: str) -> str:
        full = resolve_name(name, self._namespace, self._name)
        return self._remappings.get(name, self._remappings.get(full, full))

    def create_publisher(self, msg_type: Any, topic: str, qos: Any) -> Publisher:
        return Publisher(self.executor, self.executor.advertise(self.resolve(topic), msg_type, _qos(qos)))

    def count_publishers(self, topic: str) -> int:
        found = self.executor.topics.get(self.resolve(topic))
        return found.publishers if found is not None else 0

    def create_subscription(self, msg_type: Any, topic: str, callback: Callable, qos: Any) -> Any:
        return self.executor.subscribe(self.resolve(topic), msg_type, callback, _qos(qos))

    def create_timer(self, period: float, callback: Callable[[], None]) -> Any:
        timer = self.executor.add_timer(int(round(period * 1e9)), callback)
        self._timers.append(timer)
        return timer

    def create_service(self, srv_type: Any, name: str, callback: Callable) -> None:
        self.executor.add_service(self.resolve(name), srv_type, callback)

    def destroy_node(self) -> None:
        for timer in self._timers:
            timer.cancel()


def _qos(qos: Any) -> msgs.QoS:
    if isinstance(qos, msgs.QoS):
        return qos
    if isinstance(qos, int):
        return msgs.QoS(depth=qos)
    raise TypeError(f'unsupported QoS {qos!r}')
