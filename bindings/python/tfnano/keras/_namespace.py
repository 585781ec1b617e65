"""tf.keras sub-namespaces that say what tfnano provides when a name is missing."""


def missing(path, name, instead, provided, elsewhere):
    """The AttributeError text for tf.keras.<path>.<name>."""
    full = "%s.%s" % (path, name) if path else name
    text = "tfnano's tf.keras has no %r: tfnano provides only %s" % (
        "tf.keras." + full, provided)
    hint = instead.get(full)
    if hint:
        text += "; instead of tf.keras.%s use %s" % (full, hint)
    return text + ". The %s. See docs/keras.md." % elsewhere


class Namespace:
    """A fixed set of attributes; any other name raises an AttributeError naming what
    tfnano provides (and what to use instead, where there is a counterpart)."""

    def __init__(self, path, instead, provided, elsewhere, **attrs):
        self.__dict__.update(attrs)
        self._tfn_where = (path, instead, provided, elsewhere)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        path, instead, provided, elsewhere = self.__dict__["_tfn_where"]
        raise AttributeError(missing(path, name, instead, provided, elsewhere))

    def __dir__(self):
        return sorted(k for k in self.__dict__ if not k.startswith("_tfn"))

    def __repr__(self):
        return "<tfnano.keras.%s: %s>" % (self._tfn_where[0], ", ".join(self.__dir__()))
