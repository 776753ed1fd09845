"""``gradcli report FILE -o report.html``: one self-contained page about a run."""
