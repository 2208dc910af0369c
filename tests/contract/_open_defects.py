OPEN = {}
