"""Issue #4 acceptance: one robot, 30 simulated minutes on each shipped map, random decisions."""
import pytest

from thymio_road.passages import drive
from thymio_road.scenario import load_scenario


@pytest.mark.parametrize('name,kinds', [('simple', {'roundabout', 'location'}),
                                        ('final', {'roundabout', 'location', 'branching'})])
def test_thirty_minutes_without_road_loss_and_on_the_chosen_branch(name, kinds):
    summary, score = drive(load_scenario(name, duration=1800))
    assert summary['road_losses'] == 0
    assert summary['time_on_road_s'] == pytest.approx(summary['time_s'])
    assert score.unmatched == 0
    assert len(score.passages) >= 20
    assert score.success_rate >= 0.99, score.as_dict()['failures']
    counts = score.counts()
    assert {key.split()[0] for key in counts} == kinds
    assert any(key.endswith('exit') for key in counts) and any(key.endswith('continue') for key in counts)
