"""Write the expected traces of tests/views/test_trace_golden.py from what gradcli prints now.

    PYTHONPATH=. python tests/tools/make_trace_golden.py

Run it after a change to the trace's wording or to the rules in the op records, and read the
diff: the golden files are the trace as a person sees it.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "views"
sys.path.insert(0, str(HERE))

from test_trace_golden import CASES, trace_of  # noqa: E402  (after the path is set)


def main() -> None:
    for name, path in CASES.items():
        target = HERE / "trace_golden" / f"{name}.txt"
        target.write_text(trace_of(path), encoding="utf-8")
        print(f"wrote {target.relative_to(HERE.parents[1])}")


if __name__ == "__main__":
    main()
