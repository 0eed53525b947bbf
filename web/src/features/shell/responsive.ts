// Small-screen layout helpers (issue 10): below the `md` breakpoint tables turn into stacked rows
// and tab lists scroll sideways instead of squeezing their labels. Desktop layout is unchanged.
import type { SystemStyleObject } from '@chakra-ui/react';

/**
 * `css` for a `Table.Root`: below `md` the header is hidden and each row becomes a block whose
 * cells stack, each led by its column name taken from the cell's `data-label` attribute. Cells
 * without a label (progress blocks, empty states) take the full width.
 */
export const stackedTableCss: SystemStyleObject = {
  mdDown: {
    display: 'block',
    width: 'full',
    '& thead': { display: 'none' },
    '& tbody, & tr': { display: 'block', width: 'full' },
    '& tr': { borderBottomWidth: '1px', borderColor: 'border', py: '2' },
    '& tbody > tr:last-of-type': { borderBottomWidth: '0' },
    '& td': {
      display: 'block',
      borderBottomWidth: '0',
      px: '0',
      py: '1',
      minW: '0',
      overflowWrap: 'anywhere',
    },
    // Label column, then the cell's one child in a column that may not grow past the row.
    '& td[data-label]': {
      maxW: 'none',
      textAlign: 'start',
      whiteSpace: 'normal', // Table.ScrollArea keeps cells on one line
      display: 'grid',
      gridTemplateColumns: '6rem minmax(0, 1fr)',
      alignItems: 'center',
      columnGap: '3',
    },
    '& td[data-label]::before': {
      content: 'attr(data-label)',
      color: 'fg.muted',
      fontSize: 'xs',
      fontWeight: 'medium',
    },
    // Values wrap rather than push the row wider.
    '& td[data-label] > *': { minW: '0', flexWrap: 'wrap', justifySelf: 'start' },
    '& td[data-label] > * > *': { minW: '0' },
  },
};

/** Props for a `Tabs.List` that keeps every label whole and scrolls sideways when they do not fit. */
export const scrollingTabListProps = {
  // Only below `md`: a clipping list would also trim the active tab's underline on desktop.
  overflowX: { base: 'auto', md: 'visible' },
  overflowY: { base: 'hidden', md: 'visible' },
  flexWrap: 'nowrap',
  maxW: 'full',
  css: {
    scrollbarWidth: 'thin',
    '& > [role=tab]': { flexShrink: '0', whiteSpace: 'nowrap' },
  },
} as const;
