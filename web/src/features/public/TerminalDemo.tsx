// One animated terminal of the home page: the lines of a demo appear one by one and the demo loops
// (timing in terminalDemos.ts). With reduced motion the whole transcript is shown at once.
import { useEffect, useState } from 'react';
import { Box, Circle, HStack, Stack, Text } from '@chakra-ui/react';
import { playDemo, type TerminalDemo as Demo } from './terminalDemos';

function prefersReducedMotion(): boolean {
  return (
    typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches
  );
}

function useDemoPlayback(lineCount: number): number {
  const [still] = useState(prefersReducedMotion);
  const [shown, setShown] = useState(still ? lineCount : 0);
  useEffect(() => (still ? undefined : playDemo(lineCount, setShown)), [lineCount, still]);
  return still ? lineCount : shown;
}

export function TerminalDemo({ demo }: { demo: Demo }) {
  const shown = useDemoPlayback(demo.lines.length);
  return (
    <Stack gap="3" minW="0">
      <Box
        as="figure"
        aria-label={`${demo.title} demo: coffer-agent in a terminal`}
        data-testid={`terminal-${demo.id}`}
        bg="gray.950"
        color="gray.100"
        rounded="lg"
        borderWidth="1px"
        borderColor="gray.800"
        shadow="lg"
        overflow="hidden"
      >
        <HStack px="4" py="2.5" gap="2" bg="gray.900" borderBottomWidth="1px" borderColor="gray.800">
          <Circle size="2.5" bg="red.400" />
          <Circle size="2.5" bg="yellow.400" />
          <Circle size="2.5" bg="green.400" />
          <Text ms="2" fontSize="xs" color="gray.400" fontFamily="mono">
            {demo.title.toLowerCase()} — deploy@db-01
          </Text>
        </HStack>
        {/* Every line is laid out from the start (hidden until its turn), so the page never jumps;
            long lines wrap (a sideways scroll cut them off at the card's edge). */}
        <Box
          as="pre"
          px="4"
          py="3"
          fontFamily="mono"
          fontSize={{ base: '2xs', md: 'xs' }}
          lineHeight="1.7"
          whiteSpace="pre-wrap"
          overflowWrap="anywhere"
          m="0"
        >
          {demo.lines.map((line, i) => (
            <Box
              as="span"
              display="block"
              key={i}
              data-testid="terminal-line"
              visibility={i < shown ? 'visible' : 'hidden'}
              color={line.kind === 'command' ? 'white' : 'gray.300'}
            >
              {line.kind === 'command' && (
                <Text as="span" color="brand.300" userSelect="none">
                  ${' '}
                </Text>
              )}
              {line.text || ' '}
            </Box>
          ))}
        </Box>
      </Box>
      <Text fontSize="sm" color="fg.muted">
        {demo.caption}
      </Text>
    </Stack>
  );
}
