"""The gnuplot step the plot scripts share: their rows in a data file, a script that reads it."""
import os, subprocess, tempfile


def plot_rows(rows, script_for):
    """Writes `rows` (sequences, one line each, space-separated) to a temporary data file and
    runs gnuplot on script_for(path of that file); removes the file."""
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
        for r in rows:
            f.write(" ".join(str(x) for x in r) + "\n")
    try:
        subprocess.run(["gnuplot"], input=script_for(f.name), text=True, check=True)
    finally:
        os.unlink(f.name)
