"""The paper's evaluation (sections 6 and 7): interviews, judging, ranking, emergence."""
