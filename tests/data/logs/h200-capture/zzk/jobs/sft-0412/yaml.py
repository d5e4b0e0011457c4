"""yaml.py - scratch helper from the notebook session (ak): print a run config as indented 'key: value' lines
without PyYAML, for pasting into the experiment tracker."""


def dump(d, indent=0):
    lines = []
    for k, v in d.items():
        if isinstance(v, dict):
            lines.append(" " * indent + f"{k}:")
            lines.append(dump(v, indent + 2))
        else:
            lines.append(" " * indent + f"{k}: {v}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(dump({"lr": 3e-4, "batch": 16, "augment": {"device": "cpu"}}))
