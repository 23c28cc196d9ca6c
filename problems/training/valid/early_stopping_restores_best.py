"""Valid: early stopping done by hand. After each epoch the loop keeps the parameter values of its best
validation accuracy so far, and puts them back when training ends: the final parameters are values an
earlier optimizer step produced, so the held-out run measures them as they are (full marks, no note)."""

EDITS = [
    ("                validation_accuracy.append(get_accuracy(validation_predictions))\n",
     "                validation_accuracy.append(get_accuracy(validation_predictions))\n"
     "                if validation_accuracy[-1] > max(validation_accuracy[:-1], default=-1.0):\n"
     "                    best = [p.value for p in model.parameters()]\n"),
    ("                validation_accuracy,\n            )\n",
     "                validation_accuracy,\n            )\n"
     "        if data_val is not None:\n"
     "            for p, value in zip(model.parameters(), best):\n"
     "                p.update(value)\n"),
]
