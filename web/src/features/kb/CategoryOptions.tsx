import { categoryLabel, KB_CATEGORIES } from '@coffer/contracts';

/** The knowledge base's categories as a select's options, by their labels. */
export function CategoryOptions() {
  return KB_CATEGORIES.map((c) => (
    <option key={c} value={c}>
      {categoryLabel(c)}
    </option>
  ));
}
