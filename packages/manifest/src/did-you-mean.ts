import leven from 'leven';

const normalize = (word: string) => word.toLowerCase().replace(/[-_\s]/g, '');

/**
 * The closest candidate to `input`, if one is close enough to be a likely typo:
 * the same word in another case or separator style (`external_links` → `externalLinks`),
 * or an edit distance of at most a third of its length (at least 2, at most 3, and less
 * than the length itself, so short words are not matched to anything).
 */
export function closest(input: string, candidates: readonly string[]): string | undefined {
  const wanted = normalize(input);
  const sameWord = candidates.find((c) => normalize(c) === wanted);
  if (sameWord !== undefined) return sameWord;
  const limit = Math.min(3, Math.max(2, Math.floor(input.length / 3)), input.length - 1);
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = leven(wanted, normalize(candidate));
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= limit ? best : undefined;
}

/** ` (did you mean "x"?)` or `` when nothing is close. */
export function didYouMean(input: string, candidates: readonly string[]): string {
  const match = closest(input, candidates);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}
