const MS_PER_DAY = 86_400_000;
/** Days from 0000-03-01 to 1970-01-01 in the proleptic Gregorian calendar. */
const EPOCH_DAYS_FROM_MARCH_0000 = 719_468;
const DAYS_PER_400_YEARS = 146_097;
/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z: outside, ISO 8601 needs a sign and six digits. */
const FOUR_DIGIT_YEARS_FROM = -62_167_219_200_000;
const FOUR_DIGIT_YEARS_UNTIL = 253_402_300_800_000;

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);
const pad4 = (n: number): string => (n < 10 ? `000${n}` : n < 100 ? `00${n}` : n < 1000 ? `0${n}` : `${n}`);

/**
 * `date.toISOString()`, the same text, without V8's general date printer, which is slow for what it does, and
 * a create formats five (the row's times and the response's expiry; figures in docs/performance.md). The civil date
 * is Howard Hinnant's days-to-date algorithm; dates outside the four-digit years go to `toISOString` itself, as
 * does an invalid date (which it refuses).
 */
export function isoTimestamp(date: Date): string {
  const time = date.getTime();
  if (!(time >= FOUR_DIGIT_YEARS_FROM && time < FOUR_DIGIT_YEARS_UNTIL)) return date.toISOString();
  const days = Math.floor(time / MS_PER_DAY);
  let ms = time - days * MS_PER_DAY;
  const hours = Math.floor(ms / 3_600_000);
  ms -= hours * 3_600_000;
  const minutes = Math.floor(ms / 60_000);
  ms -= minutes * 60_000;
  const seconds = Math.floor(ms / 1000);
  ms -= seconds * 1000;
  // Years counted from March, so that the leap day is the last day of a year.
  const shifted = days + EPOCH_DAYS_FROM_MARCH_0000;
  const era = Math.floor(shifted / DAYS_PER_400_YEARS);
  const dayOfEra = shifted - era * DAYS_PER_400_YEARS;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const marchMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * marchMonth + 2) / 5) + 1;
  const month = marchMonth < 10 ? marchMonth + 3 : marchMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${pad4(year)}-${pad2(month)}-${pad2(day)}T${pad2(hours)}:${pad2(minutes)}:${pad2(seconds)}.${pad3(ms)}Z`;
}
