"""Invoice numbers: INV-<year>-<sequence, 4 digits>, sequence restarting every year."""


class InvoiceNumberer:
    def __init__(self) -> None:
        self._last: dict[int, int] = {}

    def next_number(self, year: int) -> str:
        seq = self._last.get(year, 0) + 1
        self._last[year] = seq
        return f"INV-{year}-{seq:04d}"
