"""A student who checks the placeholders against the raw feed_dict instead of `feeds`: a placeholder fed by its
name is reported as not fed."""

EXPECT = None
FAILS = ["slides_graph"]
MESSAGES = {"slides_graph": "not against feed_dict itself"}
EDITS = [
    ("            if n.op_type == \"Placeholder\" and n not in feeds:\n",
     "            if n.op_type == \"Placeholder\" and n not in (feed_dict or {}):\n"),
]
