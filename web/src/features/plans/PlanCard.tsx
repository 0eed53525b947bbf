// One plan in a pricing grid (home: four columns, profile: three).
import type { ReactNode } from 'react';
import { Badge, Box, Card, Heading, HStack, List, Stack, Text } from '@chakra-ui/react';
import type { Plan } from '../../api/generated';
import { formatPrice } from '../../lib/plan';
import { CheckIcon } from '../shell/icons';

interface PlanCardProps {
  plan: Plan;
  isCurrent?: boolean;
  action: ReactNode;
}

export function PlanCard({ plan, isCurrent = false, action }: PlanCardProps) {
  const highlighted = isCurrent || plan.popular;
  return (
    <Card.Root
      h="full"
      data-testid={`plan-${plan._id}`}
      borderWidth={highlighted ? '2px' : '1px'}
      borderColor={isCurrent ? 'brand.solid' : plan.popular ? 'brand.emphasized' : 'border'}
    >
      <Card.Body gap="4">
        <HStack justify="space-between" align="start" gap="2">
          <Heading as="h3" size="lg">
            {plan.name}
          </Heading>
          <HStack gap="1">
            {plan.popular && <Badge colorPalette="purple">Popular</Badge>}
            {isCurrent && <Badge colorPalette="brand">Current</Badge>}
          </HStack>
        </HStack>
        <PlanPrice price={plan.price} />
        <List.Root gap="2" variant="plain" fontSize="sm">
          {plan.features.map((f, i) => (
            <List.Item key={`${i}-${f.text}`} alignItems="flex-start">
              <List.Indicator asChild color="brand.solid" mt="0.5">
                <CheckIcon />
              </List.Indicator>
              {f.text}
            </List.Item>
          ))}
        </List.Root>
      </Card.Body>
      <Card.Footer>
        <Box w="full">{action}</Box>
      </Card.Footer>
    </Card.Root>
  );
}

export function PlanPrice({ price }: { price: number }) {
  const label = formatPrice(price);
  if (price === 0) {
    return (
      <Text fontSize="3xl" fontWeight="bold">
        {label}
      </Text>
    );
  }
  return (
    <Stack direction="row" align="baseline" gap="1" aria-label={label}>
      <Text fontSize="3xl" fontWeight="bold">
        ${price}
      </Text>
      <Text color="fg.muted">/month</Text>
    </Stack>
  );
}
