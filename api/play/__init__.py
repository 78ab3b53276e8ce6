"""People in the town over HTTP: the owner's share setting, who plays whom (join, take
over, leave), and who a player's resident can see."""
