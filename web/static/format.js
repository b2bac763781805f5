// Numbers as the pages write them: 1234567 -> "1,234,567" (en-US grouping).
//
// Integers are grouped here rather than by Intl.NumberFormat: a page's first
// Intl formatter loads the locale's data, which a fresh browser pays for before
// it can draw the viewer's first frame. Anything else goes to Intl (made on
// first use), so every value reads as it always did.

let intl = null;

/** An openskill value (mu, sigma) as the pages write it: two decimals; "–" when there is none. */
export function fixed(value) {
  return value == null ? "–" : value.toFixed(2);
}

/** `value` with its thousands grouped, as `new Intl.NumberFormat("en-US").format` writes it. */
export function num(value) {
  if (Number.isSafeInteger(value)) {
    const digits = String(Math.abs(value)).replace(/\B(?=(\d{3})+$)/g, ",");
    return value < 0 || Object.is(value, -0) ? `-${digits}` : digits;
  }
  intl ??= new Intl.NumberFormat("en-US");
  return intl.format(value);
}
