// The few icons the app needs, inline so no icon package is pulled in.
import { Icon, type IconProps } from '@chakra-ui/react';

export function ChevronDownIcon(props: IconProps) {
  return (
    <Icon boxSize="4" {...props}>
      <svg
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        <path d="m6 9 6 6 6-6" />
      </svg>
    </Icon>
  );
}

export function MenuIcon(props: IconProps) {
  return (
    <Icon boxSize="5" {...props}>
      <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
        <path d="M4 6h16M4 12h16M4 18h16" />
      </svg>
    </Icon>
  );
}

export function CloseIcon(props: IconProps) {
  return (
    <Icon boxSize="5" {...props}>
      <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
        <path d="M18 6 6 18M6 6l12 12" />
      </svg>
    </Icon>
  );
}

export function ArrowLeftIcon(props: IconProps) {
  return (
    <Icon boxSize="4" {...props}>
      <svg
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        <path d="M19 12H5M12 19l-7-7 7-7" />
      </svg>
    </Icon>
  );
}

export function CheckIcon(props: IconProps) {
  return (
    <Icon boxSize="4" {...props}>
      <svg
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth="2.5"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        <path d="M20 6 9 17l-5-5" />
      </svg>
    </Icon>
  );
}

export function LogoMark(props: IconProps) {
  return (
    <Icon boxSize="7" {...props}>
      <svg viewBox="0 0 32 32" aria-hidden="true">
        <rect width="32" height="32" rx="7" fill="currentColor" />
        <path d="M9 14v-3a7 7 0 0 1 14 0v3" stroke="#fff" strokeWidth="2.5" fill="none" />
        <rect x="7" y="14" width="18" height="12" rx="2.5" fill="#fff" />
        <circle cx="16" cy="20" r="2" fill="currentColor" />
      </svg>
    </Icon>
  );
}
