# Copyright 2026 thymio_road developers
#
# Use of this source code is governed by a BSD-style
# license that can be found in the LICENSE file or at
# https://developers.google.com/open-source/licenses/bsd

"""The driver's link to a real Thymio: a thin adapter over tdmclient (Thymio Device Manager).

It implements :class:`thymio_road.real.driver.ThymioLink` and nothing else, so the driver's logic
stays testable with a fake. Every tdmclient name used here is listed in :data:`TDMCLIENT_API`
(module, attribute) and a test checks each exists in the installed tdmclient.

tdmclient's requests are generator coroutines that poll the socket every 0.1 s; this module
steps them with a deadline so that an unresponsive TDM cannot hang the driver node.
"""
from __future__ import annotations

import socket
import time
from typing import Any, Generator, Sequence

from thymio_road.real.driver import AsebaProgram, LinkError, LinkLost

#: How long closing waits for the TDM to confirm "motors 0" and the unlock.
CLOSE_TIMEOUT = 0.5

#: (module, name[.attribute]) of everything this adapter uses from tdmclient.
TDMCLIENT_API: tuple[tuple[str, str], ...] = (
    ('tdmclient', 'ClientAsync'),                                   # ClientAsync(tdm_addr=, tdm_port=, zeroconf=)
    ('tdmclient.clientasync', 'ClientAsync.wait_for_tdm'),          # zeroconf discovery
    ('tdmclient.client', 'Client.process_waiting_messages'),
    ('tdmclient.client', 'Client.disconnect'),
    ('tdmclient.client', 'Client.close'),
    ('tdmclient.thymio', 'ThymioFB.nodes'),                         # instance attribute, set in __init__
    ('tdmclient.thymio', 'ThymioFB.NODE_STATUS_AVAILABLE'),
    ('tdmclient.thymio', 'ThymioFB.NODE_STATUS_DISCONNECTED'),
    ('tdmclient.thymio', 'Node.props'),                             # instance attribute: 'name'
    ('tdmclient.thymio', 'Node.id_str'),
    ('tdmclient.thymio', 'Node.status'),
    ('tdmclient.thymio', 'Listener.add_events_received_listener'),
    ('tdmclient.clientasync', 'NodeLockError'),
    ('tdmclient.clientasyncnode', 'ClientAsyncNode.lock'),
    ('tdmclient.clientasynccachenode', 'ClientAsyncCacheNode.register_events'),
    ('tdmclient.clientasyncnode', 'ClientAsyncNode.compile'),
    ('tdmclient.clientasyncnode', 'ClientAsyncNode.watch'),
    ('tdmclient.clientasyncnode', 'ClientAsyncNode.run'),
    ('tdmclient.clientnode', 'ClientNode.send_send_events'),
    ('tdmclient.clientasyncnode', 'ClientAsyncNode.set_variables'),
    ('tdmclient.clientasyncnode', 'ClientAsyncNode.unlock'),
    ('tdmclient.clientnode', 'ClientNode.send_unlock_node'),
    ('tdmclient.tcp', 'TDMConnection.comm_error'),                  # instance attribute
    ('tdmclient.tcp', 'TDMConnection.io'),                          # instance attribute: .socket
)


class TdmLink:
    """One robot through the Thymio Device Manager.

    `host` None or '' discovers the TDM with zeroconf (as Thymio Suite does); otherwise TCP to
    `host`:`port` (port 0 or None: tdmclient's default 8596). `robot_name` / `robot_id` pick
    one robot among several (its name in Thymio Suite, or its node id); otherwise the first
    robot that nobody has locked. `timeout` bounds every step of :meth:`connect`.
    """

    def __init__(self, host: str | None = None, port: int | None = None, robot_name: str = '',
                 robot_id: str = '', timeout: float = 5.0) -> None:
        if port is not None and not 0 <= port <= 65535:
            raise ValueError(f'tdm_port must be in 0..65535, got {port}')
        if not timeout > 0:
            raise ValueError(f'connect_timeout must be > 0 s, got {timeout}')
        self.host, self.port = host or None, port or None
        self.robot_name, self.robot_id, self.timeout = robot_name, robot_id, timeout
        self.client: Any = None
        self.node: Any = None
        self._events: list[tuple[str, list[int]]] = []

    # --- ThymioLink -----------------------------------------------------------------------------
    def connect(self, program: AsebaProgram) -> str:
        self.close()
        try:
            from tdmclient import ClientAsync
            from tdmclient.clientasync import NodeLockError
        except ImportError as exc:  # pragma: no cover - tdmclient is a dependency
            raise LinkError(f'tdmclient is not installed: {exc}') from None
        where = f'{self.host}:{self.port or 8596}' if self.host else 'zeroconf discovery'
        try:
            if self.host:
                self.client = ClientAsync(tdm_addr=self.host, tdm_port=self.port)
            else:
                self.client = ClientAsync(zeroconf=True, tdm_port=self.port)
                if not self._run(self.client.wait_for_tdm(timeout=self.timeout), 'discovery'):
                    raise LinkError(f'no Thymio Device Manager found by zeroconf within {self.timeout} s '
                                    '(is Thymio Suite running? set tdm_host to connect directly)')
        except LinkError:
            raise
        except (OSError, ImportError) as exc:
            raise LinkError(f'cannot reach the Thymio Device Manager ({where}): {exc}') from None
        node = self._wait_for_robot(where)
        try:
            self._run(node.lock(), 'lock')
        except NodeLockError as exc:
            raise LinkError(f'cannot lock robot {_describe(node)}: {exc}') from None
        self.node = node
        error = self._run(node.register_events(list(program.events.items())), 'register events')
        if error is not None:
            raise LinkError(f'the TDM refused the events of {program.path}: {error}')
        error = self._run(node.compile(program.source), 'compile')
        if error is not None:
            raise LinkError(f'robot {_describe(node)} refused {program.path}: line '
                            f'{error.get("error_line", "?")}: {error.get("error_msg", error)}')
        node.add_events_received_listener(self._on_events)
        self._run(node.watch(events=True), 'watch events')
        self._run(node.run(), 'run')
        return _describe(node)

    def poll(self) -> list[tuple[str, list[int]]]:
        from tdmclient import ThymioFB
        if self.client is None or self.node is None:
            raise LinkLost('not connected')
        error = getattr(self.client.tdm, 'comm_error', None) if self.client.tdm else 'connection closed'
        if error:
            raise LinkLost(f'TDM connection: {error}')
        try:
            self.client.process_waiting_messages()
        except Exception as exc:  # noqa: BLE001 - socket or protocol error: the link is gone
            raise LinkLost(f'TDM connection: {exc}') from None
        if self.node.status == ThymioFB.NODE_STATUS_DISCONNECTED:
            raise LinkLost(f'the TDM reports robot {_describe(self.node)} disconnected')
        events, self._events = self._events, []
        return events

    def send(self, event: str, values: Sequence[int]) -> None:
        if self.node is None:
            raise LinkLost('not connected')
        try:
            self.node.send_send_events({event: [int(v) for v in values]})
        except Exception as exc:  # noqa: BLE001 - DisconnectedError, OSError from the socket
            raise LinkLost(f'cannot send {event}: {exc}') from None

    def close(self) -> None:
        node, client = self.node, self.client
        self.node = self.client = None
        self._events = []
        if node is not None and client is not None and client.tdm is not None \
                and not getattr(client.tdm, 'comm_error', None):
            # Belt and braces: zero the motor variables directly (works whatever runs on the
            # robot), then unlock so another program (or Thymio Suite) can take the robot.
            # Both wait (briefly) for the TDM's answer so they are through before the socket closes.
            try:
                self._run(node.set_variables({'motor.left.target': [0], 'motor.right.target': [0]}),
                          'stop the motors', CLOSE_TIMEOUT)
                self._run(node.unlock(), 'unlock', CLOSE_TIMEOUT)
            except Exception:  # noqa: BLE001 - the link may already be gone
                try:
                    node.send_unlock_node(ignore_disconnected_error=True)
                except Exception:  # noqa: BLE001
                    pass
        if client is not None:
            connection = client.tdm
            for call in (client.disconnect, client.close):
                try:
                    call()
                except Exception:  # noqa: BLE001
                    pass
            # tdmclient's reader thread sits in a blocking recv() until the TDM sends something;
            # shutting the socket down wakes it so that it ends and closes the connection now.
            sock = getattr(getattr(connection, 'io', None), 'socket', None)
            if sock is not None:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    # --- internals ----------------------------------------------------------------------------------
    def _wait_for_robot(self, where: str) -> Any:
        from tdmclient import ThymioFB
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                self.client.process_waiting_messages()
            except Exception as exc:  # noqa: BLE001
                raise LinkError(f'TDM connection ({where}): {exc}') from None
            matching = [n for n in self.client.nodes
                        if (not self.robot_name or n.props.get('name') == self.robot_name)
                        and (not self.robot_id or n.id_str == self.robot_id)]
            free = [n for n in matching if n.status == ThymioFB.NODE_STATUS_AVAILABLE]
            if free:
                return free[0]
            if time.monotonic() > deadline:
                wanted = ' '.join(filter(None, [f"named '{self.robot_name}'" if self.robot_name else '',
                                                f'with id {self.robot_id}' if self.robot_id else '']))
                seen = ', '.join(_describe(n) + f' (status {n.status})' for n in self.client.nodes) or 'none'
                raise LinkError(f'no free robot {wanted or "at all"} on the TDM ({where}) within '
                                f'{self.timeout} s; robots seen: {seen}')
            time.sleep(0.05)

    def _run(self, coroutine: Generator, what: str, timeout: float | None = None) -> Any:
        """Step a tdmclient coroutine to its result, giving up after `timeout` (default: the link's)."""
        timeout = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        try:
            while True:
                coroutine.send(None)
                if time.monotonic() > deadline:
                    coroutine.close()
                    raise LinkError(f'no answer from the TDM within {timeout} s ({what})')
        except StopIteration as stop:
            return stop.value
        except LinkError:
            raise
        except Exception as exc:  # noqa: BLE001 - socket, DisconnectedError, protocol errors
            from tdmclient.clientasync import NodeLockError
            if isinstance(exc, NodeLockError):
                raise
            raise LinkError(f'TDM connection failed during {what}: {exc}') from None

    def _on_events(self, node: Any, events: dict) -> None:
        for name, data in events.items():
            values = [] if data is None else [int(data)] if isinstance(data, (int, float)) else \
                [int(v) for v in data]
            self._events.append((name, values))


def _describe(node: Any) -> str:
    name = node.props.get('name') if isinstance(getattr(node, 'props', None), dict) else None
    return f"'{name}' ({node.id_str})" if name else str(node.id_str)
