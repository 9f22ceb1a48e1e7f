/**
 * The one parser of whole-number settings. An unset or blank variable takes its default; anything else must be
 * digits only (no sign, fraction, exponent or hex) and lie in [min, max], or the process refuses to start with one
 * line naming the variable and what it accepts.
 */
export function wholeNumberSetting(
  name: string,
  raw: string | undefined,
  fallback: number,
  range: { min?: number; max?: number; accepts?: string } = {},
): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const { min = 1, max = Number.MAX_SAFE_INTEGER, accepts = 'a whole number above 0' } = range;
  const value = /^\s*\d+\s*$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new Error(`${name} must be ${accepts}; got "${raw}".`);
  return value;
}
