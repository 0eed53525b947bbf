import { useState } from 'react';
import { Button, Card, Heading, HStack, SimpleGrid, Skeleton, Stack, Text } from '@chakra-ui/react';
import {
  useGetPlansQuery,
  useGetUserPlanQuery,
  useUpdatePlanMutation,
  type Plan,
  type Profile,
} from '../../api/generated';
import { apiErrorMessage } from '../../lib/errors';
import { formatBytes } from '../../lib/format';
import { formatDbLimit, formatFrequency, formatRetention, storagePercent } from '../../lib/plan';
import { PlanCard, PlanPrice } from '../plans/PlanCard';
import { FormAlert } from '../shell/FormAlert';
import { StorageBar } from './StorageBar';

type Result = { status: 'success' | 'error'; message: string } | null;

function CurrentPlanCard({ plan, storageUsed }: { plan: Plan | undefined; storageUsed: number }) {
  const limit = plan?.storageLimit ?? 0;
  const percent = storagePercent(storageUsed, limit);
  return (
    <Card.Root>
      <Card.Header>
        <Card.Title>Current Plan</Card.Title>
      </Card.Header>
      <Card.Body gap="5">
        {plan ? (
          <HStack justify="space-between" align="baseline" wrap="wrap" gap="2">
            <Heading as="h3" size="xl" data-testid="current-plan-name">
              {plan.name}
            </Heading>
            {/* a free plan's name already says it; repeating 'Free' as a price reads as a glitch */}
            {plan.price > 0 && <PlanPrice price={plan.price} />}
          </HStack>
        ) : (
          <Skeleton h="8" w="40" />
        )}
        <Stack gap="2">
          <HStack justify="space-between" fontSize="sm">
            <Text fontWeight="medium">Storage Used</Text>
            <Text color="fg.muted" data-testid="storage-used">
              {formatBytes(storageUsed)} / {plan ? formatBytes(limit) : '…'}
            </Text>
          </HStack>
          <StorageBar percent={percent} />
        </Stack>
        {plan && (
          <SimpleGrid columns={{ base: 1, sm: 3 }} gap="4" fontSize="sm">
            <Stack gap="0">
              <Text color="fg.muted">Databases</Text>
              <Text fontWeight="medium">{formatDbLimit(plan.dbLimit)}</Text>
            </Stack>
            <Stack gap="0">
              <Text color="fg.muted">Retention</Text>
              <Text fontWeight="medium">{formatRetention(plan.retentionLimit)}</Text>
            </Stack>
            <Stack gap="0">
              <Text color="fg.muted">Backup frequency</Text>
              <Text fontWeight="medium">{formatFrequency(plan.frequencyLimit)}</Text>
            </Stack>
          </SimpleGrid>
        )}
      </Card.Body>
    </Card.Root>
  );
}

export function BillingTab({ profile }: { profile: Profile }) {
  const plansQuery = useGetPlansQuery();
  const userPlanQuery = useGetUserPlanQuery();
  const [updatePlan, { isLoading: updating, originalArgs: pending }] = useUpdatePlanMutation();
  const [result, setResult] = useState<Result>(null);
  if (plansQuery.error) console.error('Failed to fetch plans', plansQuery.error);
  if (userPlanQuery.error) console.error('Failed to fetch plan', userPlanQuery.error);

  const plans = plansQuery.data ?? [];
  // The current plan is the one whose _id matches the profile's plan (spec §4).
  const currentPlan = plans.find((p) => p._id === profile.plan) ?? userPlanQuery.data;
  const currentPrice = currentPlan?.price ?? 0;

  const choose = async (plan: Plan) => {
    // Paid plans need a payment flow that does not exist yet: nothing happens (spec §4).
    if (plan.price !== 0) return;
    setResult(null);
    try {
      const res = await updatePlan({ plan: plan._id }).unwrap();
      setResult({ status: 'success', message: `Plan updated to ${res.plan?.name ?? plan.name}!` });
    } catch (err) {
      setResult({
        status: 'error',
        message: apiErrorMessage(err, 'Failed to update plan', 'An error occurred updating plan'),
      });
    }
  };

  return (
    <Stack gap="8">
      {result && <FormAlert status={result.status}>{result.message}</FormAlert>}
      <CurrentPlanCard plan={currentPlan} storageUsed={profile.storageUsed ?? 0} />
      <Stack gap="4">
        <Heading as="h2" size="lg">
          Available Plans
        </Heading>
        {plansQuery.isLoading ? (
          <SimpleGrid columns={{ base: 1, md: 3 }} gap="6">
            {[0, 1, 2].map((i) => (
              <Skeleton key={i} h="72" rounded="lg" />
            ))}
          </SimpleGrid>
        ) : (
          <SimpleGrid columns={{ base: 1, md: 3 }} gap="6">
            {plans.map((plan) => {
              const isCurrent = plan._id === currentPlan?._id;
              const label = isCurrent ? 'Current Plan' : currentPrice > plan.price ? 'Downgrade' : 'Upgrade';
              return (
                <PlanCard
                  key={plan._id}
                  plan={plan}
                  isCurrent={isCurrent}
                  action={
                    <Button
                      w="full"
                      colorPalette="brand"
                      variant={isCurrent ? 'subtle' : label === 'Upgrade' ? 'solid' : 'outline'}
                      disabled={isCurrent || updating}
                      loading={updating && pending?.plan === plan._id}
                      onClick={() => void choose(plan)}
                    >
                      {label}
                    </Button>
                  }
                />
              );
            })}
          </SimpleGrid>
        )}
      </Stack>
    </Stack>
  );
}
