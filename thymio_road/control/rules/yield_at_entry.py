"""Yield at a roundabout's entry (or leaving a location's siding) while a robot of a higher role
is heard in front: the ring has the right of way (report §7.3, §8: "the robot should check if it
can enter"). At most ``yield_max`` events per intersection, so that a robot heard but not in the
way cannot hold it for good."""
from __future__ import annotations

from thymio_road.control.events import Event
from thymio_road.control.right_of_way import Role
from thymio_road.control.rules import Rule, register


@register
class YieldAtEntry(Rule):
    name = 'yield'

    #: Events yielded at this intersection.
    yielded = 0
    #: Whether it yielded this step (the YIELDING mode).
    yielding = False

    def on_intersection(self) -> None:
        self.yielded = 0

    def wheels(self, ctl, role: Role) -> tuple[int, int] | None:
        self.yielding = False
        if role is Role.ENTERING and self.yielded < self.params.yield_max:
            other = self.row.higher_ahead(role)
            if other is not None:
                if not self.yielded:
                    ctl.events.append(Event('yield', {'to': other}))
                self.yielded += 1
                self.yielding = True
                return 0, 0
        return None
