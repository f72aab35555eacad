package io.cyclium.workflow;

import static io.cyclium.workflow.WorkflowEngineTest.step;
import static io.cyclium.workflow.WorkflowEngineTest.whole;
import static io.cyclium.workflow.WorkflowEngineTest.workflow;
import static org.assertj.core.api.Assertions.assertThat;

import io.cyclium.episode.EpisodeStatus;
import io.cyclium.store.DatabaseTime;
import io.cyclium.testing.MutableClock;
import io.cyclium.testing.RecordingTelemetry;
import io.cyclium.testing.TestDatabase.Vendor;
import io.cyclium.testing.TestDatabases;
import io.cyclium.testing.TestJpa;
import io.cyclium.timing.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Versioned definitions on H2, PostgreSQL and MariaDB: a changed document (deploy or PUT) is stored
 * as the next immutable version and an unchanged one stores none; an instance records the version it
 * started with and runs it to the end (advancement and retries), whatever was stored since.
 */
@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WorkflowVersionsTest {

    @RegisterExtension
    static final TestDatabases databases = new TestDatabases();

    final MutableClock clock = new MutableClock(Instant.parse("2026-12-05T12:00:00Z"));

    static WorkflowDefinitions definitions(TestJpa db) {
        return new WorkflowDefinitions(db, new WorkflowStore(DatabaseTime.of(db.vendor()), "n1"),
                new WorkflowQueries(db.vendor()), () -> WorkflowDefinitionTest.ACTORS);
    }

    /** A node: its definitions, and an engine that runs each instance's own version, as the container wires them. */
    record Node(TestJpa db, WorkflowDefinitions defs, StepEpisodes episodes, WorkflowEngine engine) {

        /** Stores {@code def} as code and starts an instance of its current version. */
        String startStored(WorkflowDefinition def) {
            defs.registerCode(List.of(def));
            return engine.start(defs.find(def.id()).orElseThrow(), whole());
        }
    }

    Node node(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinitions defs = definitions(db);
        StepEpisodes episodes = new StepEpisodes(db);
        return new Node(db, defs, episodes, new WorkflowEngine(db, new WorkflowStore(DatabaseTime.following(db.vendor(), clock),
                "n1"), new WorkflowQueries(db.vendor()), defs::find, episodes, clock, new RecordingTelemetry(), () -> 0.5)
                .runsVersionsFrom(defs::find));
    }

    static WorkflowDefinition same(WorkflowDefinition def, StepDefinition... steps) {
        return new WorkflowDefinition(def.id(), def.subjectKey(), def.triggers(), List.of(steps));
    }

    static Map<String, String> states(TestJpa db, String instanceId) {
        Map<String, String> out = new TreeMap<>();
        db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).steps(em, instanceId))
                .forEach(s -> out.put(s.stepId(), s.state()));
        return out;
    }

    static InstanceRow instance(TestJpa db, String id) {
        return db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).instance(em, id)).orElseThrow();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_changed_declaration_is_stored_as_the_next_version_and_an_unchanged_redeploy_stores_none(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinitions defs = definitions(db);
        WorkflowDefinition v1 = workflow(step("a"), step("b", "a"));

        assertThat(defs.registerCode(List.of(v1)).get(v1.id())).isEqualTo(new WorkflowStore.SavedDefinition(1, true));
        assertThat(defs.registerCode(List.of(v1)).get(v1.id())).as("the same code deployed again")
                .isEqualTo(new WorkflowStore.SavedDefinition(1, false));
        WorkflowDefinition v2 = same(v1, step("a"), step("c", "a"));
        assertThat(defs.registerCode(List.of(v2)).get(v1.id())).isEqualTo(new WorkflowStore.SavedDefinition(2, true));
        assertThat(defs.registerCode(List.of(v2)).get(v1.id())).isEqualTo(new WorkflowStore.SavedDefinition(2, false));

        assertThat(defs.versions(v1.id())).extracting(WorkflowQueries.DefinitionVersion::version).containsExactly(2L, 1L);
        assertThat(defs.versions(v1.id())).extracting(WorkflowQueries.DefinitionVersion::origin)
                .containsOnly(WorkflowDefinitions.CODE);
        assertThat(defs.find(v1.id())).get().isEqualTo(v2.withVersion(2));
        assertThat(defs.find(v1.id(), 1)).as("the old version stays readable").get().isEqualTo(v1.withVersion(1));
        assertThat(defs.find(v1.id(), 2)).get().isEqualTo(v2.withVersion(2));
        assertThat(defs.find(v1.id(), 3)).isEmpty();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_put_with_a_changed_document_stores_the_next_version_and_repeating_a_put_stores_none(Vendor vendor) {
        TestJpa db = databases.jpa(vendor);
        WorkflowDefinitions defs = definitions(db);
        String id = "wf-" + java.util.UUID.randomUUID().toString().substring(0, 8);
        String one = "{'id':'" + id + "','steps':[" + WorkflowDefinitionTest.step("a") + "]}";
        String two = "{'id':'" + id + "','steps':[" + WorkflowDefinitionTest.step("a") + ","
                + WorkflowDefinitionTest.step("b", "a") + "]}";

        defs.put(id, WorkflowDefinitionTest.json(one));
        defs.put(id, WorkflowDefinitionTest.json(one.replace(",", " , ")));
        assertThat(defs.versions(id)).as("the same document, written differently").hasSize(1);
        defs.put(id, WorkflowDefinitionTest.json(two));
        defs.put(id, WorkflowDefinitionTest.json(one));

        assertThat(defs.versions(id)).extracting(WorkflowQueries.DefinitionVersion::version).containsExactly(3L, 2L, 1L);
        assertThat(defs.versions(id)).extracting(WorkflowQueries.DefinitionVersion::origin).containsOnly(WorkflowDefinitions.API);
        assertThat(defs.find(id)).get().extracting(WorkflowDefinition::version).isEqualTo(3L);
        assertThat(defs.find(id, 2).orElseThrow().steps()).extracting(StepDefinition::id).containsExactly("a", "b");
        assertThat(defs.find(id, 3).orElseThrow().steps()).extracting(StepDefinition::id).containsExactly("a");
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void an_instance_runs_the_version_it_started_with_after_a_redeploy_renames_its_next_step(Vendor vendor) {
        Node n = node(vendor);
        TestJpa db = n.db();
        WorkflowDefinitions defs = n.defs();
        StepEpisodes episodes = n.episodes();
        WorkflowEngine engine = n.engine();
        WorkflowDefinition v1 = workflow(step("a"), step("b", "a"));
        String old = n.startStored(v1);
        assertThat(instance(db, old).definitionVersion()).isEqualTo(1);

        // the next deploy renames b to c: the instance in flight still needs b
        defs.registerCode(List.of(same(v1, step("a"), step("c", "a"))));
        String fresh = engine.start(defs.find(v1.id()).orElseThrow(), WorkflowEngineTest.subject("r2"));
        assertThat(instance(db, fresh).definitionVersion()).isEqualTo(2);
        assertThat(states(db, fresh)).containsOnlyKeys("a", "c");

        engine.onFinished(episodes.finish(episodes.only(old, "a", 1).episodeId(), EpisodeStatus.DONE, null));
        assertThat(states(db, old).get("b")).as("version 1's b runs after a").isIn(StepState.QUEUED, StepState.RUNNING);
        engine.onFinished(episodes.finish(episodes.only(old, "b", 1).episodeId(), EpisodeStatus.DONE, null));
        assertThat(instance(db, old).status()).isEqualTo(InstanceStatus.COMPLETED);

        engine.onFinished(episodes.finish(episodes.only(fresh, "a", 1).episodeId(), EpisodeStatus.DONE, null));
        engine.onFinished(episodes.finish(episodes.only(fresh, "c", 1).episodeId(), EpisodeStatus.DONE, null));
        assertThat(instance(db, fresh).status()).isEqualTo(InstanceStatus.COMPLETED);
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_s_terminal_write_advances_its_instance_on_the_version_it_started_with(Vendor vendor) {
        Node n = node(vendor);
        WorkflowDefinition v1 = workflow(step("a"), step("b", "a"));
        String id = n.startStored(v1);
        n.defs().registerCode(List.of(same(v1, step("a"), step("renamed", "a"))));

        String a = n.episodes().only(id, "a", 1).episodeId();
        io.cyclium.episode.EpisodeStore store = new io.cyclium.episode.EpisodeStore(n.db().vendor());
        n.db().inNewTransaction(em -> {
            store.finish(em, a, EpisodeStatus.DONE, 1, "summary of a", null, null);
            return n.engine().finishInCommit(em, new io.cyclium.episode.EpisodeFinished(a, "worker", "work", "done", null,
                    id, "a"));
        }).ifPresent(Runnable::run);

        assertThat(states(n.db(), id)).containsOnlyKeys("a", "b").containsEntry("a", StepState.COMPLETED);
        Optional<WorkflowQueries.EpisodeOutcome> b = n.db().inNewTransaction(em -> new WorkflowQueries(n.db().vendor())
                .episodeByKey(em, StepLauncher.dedupeKey(id, "b", 1)));
        assertThat(b).as("version 1's b stored in a's terminal write").isPresent();
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_step_removed_by_a_put_is_still_retried_for_the_instance_that_started_with_it(Vendor vendor) {
        Node n = node(vendor);
        TestJpa db = n.db();
        WorkflowDefinitions defs = n.defs();
        StepEpisodes episodes = n.episodes();
        WorkflowEngine engine = n.engine();
        RetryPolicy twice = new RetryPolicy(2, Duration.ofSeconds(5), 1.0, Duration.ofMinutes(1), 0.0, Set.of());
        WorkflowDefinition v1 = workflow(new StepDefinition("flaky", "worker", "work", List.of(), true, false,
                FailurePolicy.ABORT, twice));
        defs.put(v1.id(), WorkflowJson.write(v1));
        String id = engine.start(defs.find(v1.id()).orElseThrow(), whole());
        engine.onFinished(episodes.finish(episodes.only(id, "flaky", 1).episodeId(), EpisodeStatus.FAILED, "timeout"));

        defs.put(v1.id(), WorkflowJson.write(same(v1, step("steady"))));
        db.run(em -> em.createNativeQuery("UPDATE cyclium_workflow_steps SET next_attempt_at = ?1 WHERE instance_id = ?2")
                .setParameter(1, java.sql.Timestamp.valueOf("2000-01-01 00:00:00")).setParameter(2, id).executeUpdate());
        assertThat(engine.runDueRetries(10)).isEqualTo(1);
        engine.onFinished(episodes.finish(episodes.only(id, "flaky", 2).episodeId(), EpisodeStatus.DONE, null));

        assertThat(instance(db, id).status()).isEqualTo(InstanceStatus.COMPLETED);
        assertThat(states(db, id)).containsExactly(Map.entry("flaky", StepState.COMPLETED));
    }

    @ParameterizedTest(name = "on {0}")
    @EnumSource(Vendor.class)
    void a_deploy_that_no_longer_has_an_expectation_an_instance_in_flight_needs_names_the_instance_and_step(Vendor vendor) {
        Node n = node(vendor);
        TestJpa db = n.db();
        WorkflowDefinitions defs = n.defs();
        WorkflowDefinition v1 = workflow(step("a"), step("b", "a"));
        String id = n.startStored(v1);
        List<WorkflowQueries.StepToRun> toRun = db.inNewTransaction(em -> new WorkflowQueries(db.vendor()).stepsToRun(em, 10_000))
                .stream().filter(s -> s.instanceId().equals(id)).toList();
        assertThat(toRun).as("a runs already; b has still to run").extracting(WorkflowQueries.StepToRun::stepId)
                .containsExactly("b");

        assertThat(UndeployedSteps.of(toRun, defs::find, WorkflowDefinitionTest.ACTORS)).as("the code is deployed").isEmpty();
        List<io.cyclium.actor.ActorDefinition> renamed = List.of(io.cyclium.actor.TestActors.actor("worker",
                io.cyclium.actor.Overflow.QUEUE, io.cyclium.actor.TestActors.expectation("work-v2")));
        assertThat(UndeployedSteps.of(toRun, defs::find, renamed)).containsExactly(
                "instance " + id + " (" + v1.id() + " version 1): step \"b\": actor \"worker\" has no expectation \"work\"");
    }
}
