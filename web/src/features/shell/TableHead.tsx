import { Table } from '@chakra-ui/react';

/** A table's header row: its column names, then (aligned to the end) the column of its buttons. */
export function TableHead({ columns, actions }: { columns: string[]; actions?: string }) {
  return (
    <Table.Header>
      <Table.Row>
        {columns.map((c) => (
          <Table.ColumnHeader key={c}>{c}</Table.ColumnHeader>
        ))}
        {actions && <Table.ColumnHeader textAlign="end">{actions}</Table.ColumnHeader>}
      </Table.Row>
    </Table.Header>
  );
}
