// Money helpers: inside shopcart every amount is an integer number of cents.

export function toCents(amount) {
  if (typeof amount === "number") {
    if (!Number.isFinite(amount)) {
      throw new TypeError(`not an amount: ${amount}`);
    }
    return roundHalfUp(amount * 100);
  }
  const text = String(amount).trim();
  if (!/^-?\d+(\.\d+)?$/.test(text)) {
    throw new TypeError(`not an amount: ${amount}`);
  }
  return roundHalfUp(Number(text) * 100);
}

export function roundHalfUp(value) {
  return Math.sign(value) * Math.round(Math.abs(value));
}

export function formatCents(cents) {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}
