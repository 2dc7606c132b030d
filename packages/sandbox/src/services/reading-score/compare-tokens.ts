/**
 * Token alignment of a student's reading against the reference: minimum edit distance with a backtrace,
 * so every reference token is correct, missing or substituted and every unmatched student token extra.
 */
export type WordStatus = 'correct' | 'missing' | 'extra' | 'substitution';

export interface AlignedWord {
  referenceIndex: number | null;
  studentIndex: number | null;
  status: WordStatus;
  referenceToken: string | null;
  studentToken: string | null;
}

export function editDistance(reference: readonly string[], student: readonly string[]): number {
  return alignTokens(reference, student).filter((word) => word.status !== 'correct').length;
}

export function alignTokens(reference: readonly string[], student: readonly string[]): AlignedWord[] {
  const rows = reference.length + 1;
  const cols = student.length + 1;
  const cost: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const same = reference[i - 1] === student[j - 1] ? 0 : 1;
      cost[i]![j] = Math.min(cost[i - 1]![j - 1]! + same, cost[i - 1]![j]! + 1, cost[i]![j - 1]! + 1);
    }
  }
  const words: AlignedWord[] = [];
  let i = reference.length;
  let j = student.length;
  while (i > 0 || j > 0) {
    if (i > 0 && j > 0) {
      const same = reference[i - 1] === student[j - 1];
      if (cost[i]![j] === cost[i - 1]![j - 1]! + (same ? 0 : 1)) {
        words.push({
          referenceIndex: i - 1,
          studentIndex: j - 1,
          status: same ? 'correct' : 'substitution',
          referenceToken: reference[i - 1]!,
          studentToken: student[j - 1]!,
        });
        i--;
        j--;
        continue;
      }
    }
    if (i > 0 && cost[i]![j] === cost[i - 1]![j]! + 1) {
      words.push({
        referenceIndex: i - 1,
        studentIndex: null,
        status: 'missing',
        referenceToken: reference[i - 1]!,
        studentToken: null,
      });
      i--;
    } else {
      words.push({
        referenceIndex: null,
        studentIndex: j - 1,
        status: 'extra',
        referenceToken: null,
        studentToken: student[j - 1]!,
      });
      j--;
    }
  }
  return words.reverse();
}

/** 0..100: 100 × (1 − distance / length of the longer sequence). */
export function levenshteinSimilarity(reference: readonly string[], student: readonly string[]): number {
  const longest = Math.max(reference.length, student.length);
  if (longest === 0) return 100;
  return 100 * (1 - editDistance(reference, student) / longest);
}
