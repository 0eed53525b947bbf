import { Field, Flex, Input, type InputProps } from '@chakra-ui/react';
import type { ReactNode } from 'react';

export interface TextFieldProps extends InputProps {
  label: string;
  /** The field's message when it is invalid; the field shows as invalid while it is set. */
  error?: string | null;
  /** A hint under the input. */
  helper?: ReactNode;
  /** Beside the label, at the far end (sign-in's "Forgot your password?"). */
  labelAside?: ReactNode;
}

/** The forms' one labelled input: label, input, hint, and the error under it once there is one. */
export function TextField({ label, error, helper, labelAside, ...input }: TextFieldProps) {
  const fieldLabel = <Field.Label>{label}</Field.Label>;
  return (
    <Field.Root invalid={Boolean(error)}>
      {labelAside ? (
        <Flex w="full" justify="space-between" align="baseline">
          {fieldLabel}
          {labelAside}
        </Flex>
      ) : (
        fieldLabel
      )}
      <Input {...input} />
      {helper && <Field.HelperText>{helper}</Field.HelperText>}
      <Field.ErrorText>{error}</Field.ErrorText>
    </Field.Root>
  );
}

/** A field of a form drawn from a list: `name` is the key of its value in the form. */
export interface FieldSpec<K extends string> extends Omit<
  TextFieldProps,
  'name' | 'value' | 'onChange' | 'error'
> {
  name: K;
}

/** A form's text fields from one list, each bound to its value (and its error) by name. */
export function TextFields<K extends string>({
  fields,
  values,
  errors,
  onChange,
}: {
  fields: readonly FieldSpec<K>[];
  values: Record<K, string>;
  errors?: Partial<Record<K, string>>;
  onChange: (name: K, value: string) => void;
}) {
  return fields.map(({ name, ...field }) => (
    <TextField
      key={name}
      {...field}
      name={name}
      value={values[name]}
      error={errors?.[name]}
      onChange={(e) => onChange(name, e.target.value)}
    />
  ));
}
