package io.cyclium.finding;

import io.cyclium.keys.EpisodeRef;
import io.cyclium.testing.TestJpa;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** One test's view of one vendor's findings table: the store, the read side and raw rows. */
final class FindingFixture {

    final TestJpa jpa;
    final FindingStore store;
    final FindingQueries queries;

    FindingFixture(TestJpa jpa) {
        this.jpa = jpa;
        this.store = new FindingStore(jpa.vendor());
        this.queries = new FindingQueries(jpa.vendor());
    }

    FindingOutcome apply(FindingAction action, EpisodeRef episode) {
        return jpa.inNewTransaction(em -> store.apply(em, action, episode, null));
    }

    List<FindingView> activeFor(Map<String, String> filters, String env) {
        return jpa.inNewTransaction(em -> queries.activeFor(em, filters, env, 100));
    }

    List<FindingView> list(String status, String cls, String env, boolean anyEnv) {
        return jpa.inNewTransaction(em -> queries.list(em, status, cls, env, anyEnv, 100));
    }

    List<FindingView> rows(String key) {
        return jpa.inNewTransaction(em -> em.createQuery(
                        "SELECT f FROM FindingEntity f WHERE f.findingKey = :key", FindingEntity.class)
                .setParameter("key", key).getResultList().stream().map(FindingView::of).toList());
    }

    FindingView row(String id) {
        return jpa.inNewTransaction(em -> FindingView.of(em.find(FindingEntity.class, id)));
    }

    long count(String sql, String parameter) {
        return jpa.inNewTransaction(em -> ((Number) em.createNativeQuery(sql).setParameter(1, parameter)
                .getSingleResult()).longValue());
    }

    static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static List<String> ids(List<FindingView> views) {
        return views.stream().map(FindingView::id).toList();
    }

    static String key() {
        return "finding:" + UUID.randomUUID();
    }

    static EpisodeRef episode(String env) {
        return new EpisodeRef(UUID.randomUUID().toString(), "monitor", "check", null, null, env);
    }
}
