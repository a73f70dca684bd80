/**
 * Bounds of the integer types the protocol's amounts end up in (the contracts take wei as uint256, block numbers and
 * timestamps as uint64), and a decimal reader that refuses an over-long string before converting it: `BigInt` of an
 * n-digit string costs O(n²), so a megabyte of digits would block the event loop for seconds.
 */

export const UINT64_MAX = (1n << 64n) - 1n;
export const UINT256_MAX = (1n << 256n) - 1n;

/** The value of `digits` (already known to be `[0-9]+`), or undefined when it is above `max`. Linear in the length. */
export function decimalAtMost(digits: string, max: bigint): bigint | undefined {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 48) i++;
  if (digits.length - i > max.toString().length) return undefined;
  const v = BigInt(digits.slice(i));
  return v > max ? undefined : v;
}

/** A short rendering of a possibly huge decimal string for error messages. */
export function describeDecimal(digits: string): string {
  return digits.length <= 24 ? digits : `${digits.slice(0, 12)}…(${digits.length} digits)`;
}
