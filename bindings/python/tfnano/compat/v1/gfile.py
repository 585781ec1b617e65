"""``tf.compat.v1.gfile``: TF1's CamelCase file helpers over tfnano.io.gfile."""
from ...io.gfile import gfile as _g

Exists = _g.exists
Glob = _g.glob
GFile = _g.GFile
Open = _g.GFile
FastGFile = _g.GFile
IsDirectory = _g.isdir
ListDirectory = _g.listdir
MakeDirs = _g.makedirs
MkDir = _g.mkdir
Remove = _g.remove
DeleteRecursively = _g.rmtree
Rename = _g.rename
Copy = _g.copy
Stat = _g.stat
Walk = _g.walk

__all__ = ["Exists", "Glob", "GFile", "Open", "FastGFile", "IsDirectory", "ListDirectory",
           "MakeDirs", "MkDir", "Remove", "DeleteRecursively", "Rename", "Copy", "Stat",
           "Walk"]
