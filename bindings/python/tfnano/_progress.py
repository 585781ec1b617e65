"""A progress line on stderr for work that lasts: nothing is drawn during the first
second (short jobs stay quiet), and nothing at all when stderr is not a terminal
(logs and pipes stay clean) unless forced."""
import sys
import time


def _human(n):
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return ("%d %s" % (n, unit)) if unit == "B" else ("%.1f %s" % (n, unit))
        n /= 1000.0


def _duration(s):
    s = int(s + 0.5)
    return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60) if s >= 3600 else \
        "%d:%02d" % (s // 60, s % 60)


class Progress:
    """``with Progress("writing", total=n) as p: p.update(records=k, nbytes=b)``.

    total is in records (None when unknown). enabled: None = only on a terminal."""

    DELAY = 1.0
    EVERY = 0.2

    def __init__(self, label, total=None, enabled=None, stream=None):
        self.label = label
        self.total = total
        self.records = 0
        self.nbytes = 0
        self._stream = stream or sys.stderr
        if enabled is None:
            enabled = hasattr(self._stream, "isatty") and self._stream.isatty()
        self._enabled = bool(enabled)
        self._start = time.monotonic()
        self._last = 0.0
        self._drawn = False

    def update(self, records=0, nbytes=0):
        self.records += records
        self.nbytes += nbytes
        if not self._enabled:
            return
        now = time.monotonic()
        if now - self._start < self.DELAY or now - self._last < self.EVERY:
            return
        self._last = now
        self._draw(now)

    def _draw(self, now):
        rate = self.records / max(now - self._start, 1e-9)
        if self.total:
            share = min(self.records / self.total, 1.0)
            bar = "#" * int(share * 20)
            head = "%s [%-20s] %d/%d %3d%%" % (self.label, bar, self.records, self.total,
                                               int(share * 100))
            if 0 < self.records < self.total and rate > 0:
                head += " ETA %s" % _duration((self.total - self.records) / rate)
        else:
            head = "%s %d records" % (self.label, self.records)
        line = "\r%s, %s, %.0f records/s " % (head, _human(self.nbytes), rate)
        self._stream.write(line)
        self._stream.flush()
        self._drawn = True

    def close(self):
        if self._drawn:
            self._draw(time.monotonic())
            self._stream.write("\n")
            self._stream.flush()
            self._drawn = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
