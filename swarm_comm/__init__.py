"""IR communication for robot swarms: Thymio proximity comm and the SwarmCom stack."""
