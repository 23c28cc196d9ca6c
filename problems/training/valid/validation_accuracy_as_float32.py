"""Valid: the validation accuracy appended as a float32 (np.float32(get_accuracy(...))): the number log_fn
receives differs from the float64 one by about 1e-8, well under half an example."""

import numpy as np

EDITS = [("                validation_accuracy.append(get_accuracy(validation_predictions))\n",
          "                validation_accuracy.append(np.float32(get_accuracy(validation_predictions)))\n")]
