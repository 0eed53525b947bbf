import { useState } from 'react';

/** A form's text values by field name, and the setter its fields call (TextFields' `onChange`). */
export function useFormValues<K extends string>(initial: Record<K, string>) {
  const [values, setValues] = useState(initial);
  const setField = (field: K, value: string) => setValues((v) => ({ ...v, [field]: value }));
  return [values, setField, setValues] as const;
}
