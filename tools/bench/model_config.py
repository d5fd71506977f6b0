"""model_config.py: config.json helpers shared by the bench scripts (plan_check.py, longest_seq.py)."""
import json
import os


def raised_config(config, T, folder):
    """The path of --config itself when its max_position_embeddings covers T tokens, else of a copy
    written in `folder` with it raised to T. For random-init benchmarks, whose positions past the
    trained range cost the same as any other (the model refuses a --seq-len above the maximum)."""
    with open(config) as f:
        cfg = json.load(f)
    if int(cfg.get("max_position_embeddings") or 0) >= T:
        return config
    cfg["max_position_embeddings"] = T
    path = os.path.join(folder, f"config-max-positions-{T}.json")
    with open(path, "w") as f:
        json.dump(cfg, f, indent=1)
    return path
