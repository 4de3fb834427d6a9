"""Studies of agents against people: the plan (a YAML file), its schedule and its export."""
