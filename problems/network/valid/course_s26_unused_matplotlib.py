"""Valid: `import matplotlib.pyplot as plt` left at the top (not installed where grading runs, never used).

A package the sandbox lacks, imported and never used.
"""

OFFERING = "s26"
SCORE = 30.0

import matplotlib.pyplot as plt  # for a loss curve, never used while grading
