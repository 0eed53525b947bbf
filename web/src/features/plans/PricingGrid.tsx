// Public pricing: every plan with Get Started → /register (home page, four columns).
import { Button, SimpleGrid, Skeleton, Text } from '@chakra-ui/react';
import { Link as RouterLink } from 'react-router';
import { PlanCard } from './PlanCard';
import { useGetPlansQuery } from '../../api/generated';

export function PricingGrid() {
  const { data: plans, isLoading, isError } = useGetPlansQuery();

  if (isLoading) {
    return (
      <SimpleGrid columns={{ base: 1, sm: 2, lg: 4 }} gap="6">
        {[0, 1, 2, 3].map((i) => (
          <Skeleton key={i} h="80" rounded="lg" />
        ))}
      </SimpleGrid>
    );
  }
  if (isError || !plans) {
    return (
      <Text color="fg.muted" textAlign="center">
        Plans are unavailable right now.
      </Text>
    );
  }
  return (
    <SimpleGrid columns={{ base: 1, sm: 2, lg: 4 }} gap="6">
      {plans.map((plan) => (
        <PlanCard
          key={plan._id}
          plan={plan}
          action={
            <Button asChild w="full" colorPalette="brand" variant={plan.popular ? 'solid' : 'outline'}>
              <RouterLink to="/register">Get Started</RouterLink>
            </Button>
          }
        />
      ))}
    </SimpleGrid>
  );
}
