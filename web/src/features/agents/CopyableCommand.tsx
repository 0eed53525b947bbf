// A command the user runs on the agent's server, copied with one click.
import { Fragment, useEffect, useRef, useState } from 'react';
import { Button, Code, HStack } from '@chakra-ui/react';
import { copyText } from '../../lib/clipboard';
import { COPIED_MS } from './wizardCommands';

/** Copies `text`; `copied` is true for COPIED_MS afterwards (the button reads 'Copied'). */
export function useCopied(text: string) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  const copy = async () => {
    if (!(await copyText(text))) return;
    setCopied(true);
    if (timer.current) clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPIED_MS);
  };
  return { copied, copy };
}

/** A shell command in a code block that wraps between words, with a Copy button. */
export function CopyableCommand({ command, testId }: { command: string; testId?: string }) {
  const { copied, copy } = useCopied(command);
  return (
    <HStack gap="2" align="center" wrap="wrap">
      <Code
        fontSize="sm"
        px="2"
        py="1"
        overflowWrap="anywhere"
        whiteSpace="pre-wrap"
        display="inline-block"
        data-testid={testId}
      >
        {/* Lines break between words, not inside '--uri' (Chrome breaks after hyphens); a word
            too long for a phone's width may still break. */}
        {command.split(' ').map((word, i) => (
          <Fragment key={i}>
            {i > 0 && ' '}
            <span style={word.length <= 24 ? { whiteSpace: 'nowrap' } : undefined}>{word}</span>
          </Fragment>
        ))}
      </Code>
      <Button size="xs" variant="outline" bg="bg" onClick={() => void copy()} aria-label="Copy command">
        {copied ? 'Copied' : 'Copy'}
      </Button>
    </HStack>
  );
}
