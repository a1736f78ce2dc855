"""One router per resource of the read API; ``ROBOT_ROUTERS`` are mounted under /api/robot."""
