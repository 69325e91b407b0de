// When the blocks of the list order (patient_list_blocks, decisions 0171 and 0172) are cut again.

/**
 * Whether the blocks have drifted from ~`target` patients each: a block holds more than twice the target (its pages
 * walk more than a block), or there are more than twice the blocks the patients need plus one (deletions left many
 * small blocks, each a row every page reads). `lastCutTotal` is the total at this process's last re-cut: a block of
 * one apellido_norm cannot be split, so the re-cut is not repeated until the patients changed by a block's worth.
 */
export function blocksDrifted(counts: readonly number[], target: number, lastCutTotal: number | null = null): boolean {
  let total = 0;
  let largest = 0;
  for (const n of counts) {
    total += n;
    if (n > largest) largest = n;
  }
  if (lastCutTotal !== null && Math.abs(total - lastCutTotal) < target) return false;
  return largest > 2 * target || counts.length > 2 * Math.ceil(total / target) + 1;
}
