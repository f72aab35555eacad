package io.cyclium.workflow;

import static io.cyclium.actor.TestActors.actor;
import static io.cyclium.actor.TestActors.expectation;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.cyclium.actor.ActorDefinition;
import io.cyclium.actor.Overflow;
import io.cyclium.problem.Problem;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayNameGeneration;
import org.junit.jupiter.api.DisplayNameGenerator;
import org.junit.jupiter.api.Test;

@DisplayNameGeneration(DisplayNameGenerator.ReplaceUnderscores.class)
class WorkflowDefinitionTest {

    static final List<ActorDefinition> ACTORS = List.of(actor("worker", Overflow.QUEUE, expectation("work")));

    static JsonObject json(String text) {
        return Json.createReader(new StringReader(text.replace('\'', '"'))).readObject();
    }

    static String step(String id, String... deps) {
        return "{'id':'" + id + "','actor':'worker','expectation':'work','dependsOn':["
                + String.join(",", java.util.Arrays.stream(deps).map(d -> "'" + d + "'").toList()) + "]}";
    }

    static WorkflowDefinition parse(String... steps) {
        return WorkflowJson.parse(json("{'id':'wf','steps':[" + String.join(",", steps) + "]}"));
    }

    @Test
    void a_well_formed_dag_passes_and_survives_a_round_trip_through_json() {
        WorkflowDefinition def = WorkflowJson.parse(json("{'id':'wf','subjectKey':'resource','triggers':[{'type':'event',"
                + "'event':'changed','filter':['kind=cpu']}],'steps':[" + step("a") + "," + step("b", "a")
                + ",{'id':'c','actor':'worker','expectation':'work','dependsOn':['a','b'],'critical':false,'approval':true,"
                + "'onFailure':'pause','retry':{'maxAttempts':4,'initialDelay':'PT2S','multiplier':3,'maxDelay':'PT1M',"
                + "'jitter':0.25,'nonRetryable':['denied']}}]}"));

        assertThat(WorkflowValidation.check(def, ACTORS)).isEmpty();
        WorkflowDefinition again = WorkflowJson.parse(WorkflowJson.write(def));
        assertThat(again).isEqualTo(def);
        StepDefinition c = again.step("c").orElseThrow();
        assertThat(c.critical()).isFalse();
        assertThat(c.approval()).isTrue();
        assertThat(c.onFailure()).isEqualTo(FailurePolicy.PAUSE);
        assertThat(c.retry().maxAttempts()).isEqualTo(4);
        assertThat(c.retry().nonRetryable()).containsExactly("denied");
        assertThat(def.startedBy("changed", json("{'kind':'cpu'}"))).isTrue();
        assertThat(def.startedBy("changed", json("{'kind':'disk'}"))).isFalse();
    }

    @Test
    void a_step_s_priority_survives_a_round_trip_and_one_that_is_not_an_integer_is_refused_naming_it() {
        WorkflowDefinition def = parse(step("a"), "{'id':'b','actor':'worker','expectation':'work','priority':7}");
        assertThat(def.step("b").orElseThrow().priority()).isEqualTo(7);
        assertThat(def.step("a").orElseThrow().priority()).as("absent: the expectation's").isZero();
        assertThat(WorkflowJson.parse(WorkflowJson.write(def))).isEqualTo(def);
        assertThat(WorkflowJson.write(def).getJsonArray("steps").getJsonObject(0).containsKey("priority"))
                .as("a document without priorities is written as before").isFalse();
        for (String bad : new String[] {"'high'", "1.5", "2000000"}) {
            assertThatThrownBy(() -> parse("{'id':'b','actor':'worker','expectation':'work','priority':" + bad + "}"))
                    .as(bad).isInstanceOf(io.cyclium.problem.Problem.class).hasMessageContaining("steps[0].priority");
        }
    }

    @Test
    void a_step_s_own_concurrency_key_survives_a_round_trip_and_is_read_on_the_step_s_input() {
        WorkflowDefinition def = parse(step("a"),
                "{'id':'b','actor':'worker','expectation':'work','concurrencyKey':'$.tenant','concurrencyLimit':2}");
        StepDefinition b = def.step("b").orElseThrow();
        assertThat(b.keyed()).isTrue();
        assertThat(b.concurrencyLimit()).isEqualTo(2);
        assertThat(WorkflowValidation.check(def, ACTORS)).isEmpty();
        assertThat(WorkflowJson.parse(WorkflowJson.write(def))).isEqualTo(def);
        assertThat(WorkflowJson.write(def).getJsonArray("steps").getJsonObject(0).containsKey("concurrencyKey"))
                .as("a step without a key is written as before").isFalse();
        assertThat(b.keyOf(json("{'tenant':'acme','workflow':{'stepId':'b'}}"))).isEqualTo("acme");
        assertThat(b.keyOf(json("{'other':1}"))).isEqualTo(io.cyclium.actor.FlowControl.NO_KEY);
        assertThat(def.step("a").orElseThrow().keyOf(json("{'tenant':'acme'}"))).as("no key declared").isNull();
    }

    @Test
    void a_step_limit_without_a_key_a_key_without_a_limit_a_limit_below_one_and_a_bad_path_are_refused_naming_the_field() {
        WorkflowDefinition def = parse("{'id':'nokey','actor':'worker','expectation':'work','concurrencyLimit':2}",
                "{'id':'nolimit','actor':'worker','expectation':'work','concurrencyKey':'tenant'}",
                "{'id':'negative','actor':'worker','expectation':'work','concurrencyKey':'tenant','concurrencyLimit':-1}",
                "{'id':'badpath','actor':'worker','expectation':'work','concurrencyKey':'a..b','concurrencyLimit':1}");
        assertThat(WorkflowValidation.check(def, ACTORS)).extracting(WorkflowValidation.Issue::toString).containsExactly(
                "steps[0].concurrencyKey: step \"nokey\": concurrencyLimit 2 needs a concurrencyKey (the input's field whose"
                        + " value the limit is per)",
                "steps[1].concurrencyLimit: step \"nolimit\": concurrencyKey \"tenant\" needs a concurrencyLimit of at least 1,"
                        + " not 0",
                "steps[2].concurrencyLimit: step \"negative\": concurrencyKey \"tenant\" needs a concurrencyLimit of at least"
                        + " 1, not -1",
                "steps[3].concurrencyKey: step \"badpath\": concurrencyKey \"a..b\" is not a payload field path: allowed are"
                        + " dotted names such as tenant or $.order.region");
        assertThatThrownBy(() -> parse("{'id':'b','actor':'worker','expectation':'work','concurrencyKey':'t','concurrencyLimit':'two'}"))
                .isInstanceOf(Problem.class).hasMessageContaining("steps[0].concurrencyLimit");
    }

    @Test
    void a_cycle_is_refused_naming_the_steps_on_it() {
        WorkflowDefinition def = parse(step("a", "c"), step("b", "a"), step("c", "b"), step("d"));

        assertThat(WorkflowValidation.check(def, ACTORS)).singleElement().satisfies(issue -> {
            assertThat(issue.field()).isEqualTo("steps");
            assertThat(issue.message()).contains("cycle").contains("a -> c -> b -> a");
        });
    }

    @Test
    void a_step_that_depends_on_itself_is_a_cycle() {
        assertThat(WorkflowValidation.check(parse(step("a", "a")), ACTORS))
                .extracting(WorkflowValidation.Issue::message).anyMatch(m -> m.contains("a -> a"));
    }

    @Test
    void an_unknown_dependency_is_refused_naming_the_field_and_the_step() {
        assertThat(WorkflowValidation.check(parse(step("a"), step("b", "a", "ghost")), ACTORS)).singleElement()
                .satisfies(issue -> {
                    assertThat(issue.field()).isEqualTo("steps[1].dependsOn[1]");
                    assertThat(issue.message()).contains("\"b\"").contains("unknown step \"ghost\"");
                });
    }

    @Test
    void a_duplicate_step_id_is_refused() {
        assertThat(WorkflowValidation.check(parse(step("a"), step("a")), ACTORS)).singleElement()
                .satisfies(issue -> assertThat(issue.toString()).isEqualTo("steps[1].id: duplicate step id \"a\" in workflow wf"));
    }

    @Test
    void an_unknown_actor_or_expectation_is_refused() {
        WorkflowDefinition def = WorkflowJson.parse(json("{'id':'wf','steps':[{'id':'a','actor':'nobody','expectation':'x'},"
                + "{'id':'b','actor':'worker','expectation':'nothing'}]}"));

        assertThat(WorkflowValidation.check(def, ACTORS)).extracting(WorkflowValidation.Issue::toString).containsExactly(
                "steps[0].actor: step \"a\" names unknown actor \"nobody\"",
                "steps[1].expectation: step \"b\": actor \"worker\" has no expectation \"nothing\"");
    }

    @Test
    void json_of_the_wrong_shape_is_refused_naming_the_field() {
        assertThatThrownBy(() -> WorkflowJson.parse(json("{'id':'wf','steps':[{'id':'a','actor':'worker'}]}")))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("steps[0].expectation"));
        assertThatThrownBy(() -> WorkflowJson.parse(json("{'id':'wf','steps':[" + step("a").replace("}", ",'retry':{'initialDelay':'soon'}}") + "]}")))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("steps[0].retry.initialDelay"));
        assertThatThrownBy(() -> WorkflowJson.parse(json("{'id':'wf','steps':[" + step("a").replace("}", ",'onFailure':'explode'}") + "]}")))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.getMessage()).contains("abort, pause"));
        assertThatThrownBy(() -> WorkflowJson.parse(json("{'id':'wf','steps':{}}")))
                .isInstanceOfSatisfying(Problem.class, p -> assertThat(p.field()).isEqualTo("steps"));
    }

    @Test
    void an_outcome_schedules_its_target_and_exactly_its_transitive_dependencies() {
        // a -> b -> d, a -> c, e alone; d also needs c
        WorkflowDefinition def = parse(step("a"), step("b", "a"), step("c", "a"), step("d", "b", "c"), step("e"),
                step("f", "d"));

        assertThat(def.scheduledFor("d")).extracting(StepDefinition::id).containsExactly("a", "b", "c", "d");
        assertThat(def.scheduledFor("c")).extracting(StepDefinition::id).containsExactly("a", "c");
        assertThat(def.scheduledFor("e")).extracting(StepDefinition::id).containsExactly("e");
        assertThat(def.scheduledFor(null)).hasSize(6);
        assertThatThrownBy(() -> def.scheduledFor("zzz")).hasMessageContaining("no step \"zzz\"");
    }

    @Workflow(id = "declared", steps = {
            @WorkflowStep(id = "one", actor = "worker", expectation = "work"),
            @WorkflowStep(id = "two", actor = "worker", expectation = "work", dependsOn = "one", maxAttempts = 3)})
    static class Declared {
    }

    @Workflow(id = "broken", steps = {
            @WorkflowStep(id = "one", actor = "worker", expectation = "work", dependsOn = "two"),
            @WorkflowStep(id = "two", actor = "worker", expectation = "work", dependsOn = "one"),
            @WorkflowStep(id = "three", actor = "ghost", expectation = "work", dependsOn = "four")})
    static class Broken {
    }

    @Test
    void a_code_declaration_is_read_and_a_broken_one_is_reported_for_the_deployment_to_fail() {
        List<String> problems = new ArrayList<>();
        List<WorkflowDefinition> defs = WorkflowDiscovery.check(List.of(Declared.class, Broken.class), ACTORS, problems);

        assertThat(defs).extracting(WorkflowDefinition::id).containsExactly("declared");
        assertThat(defs.get(0).step("two").orElseThrow().retry().maxAttempts()).isEqualTo(3);
        assertThat(problems).allMatch(p -> p.startsWith("workflow broken (" + Broken.class.getName() + "): "))
                .anyMatch(p -> p.contains("steps[2].actor") && p.contains("\"ghost\""))
                .anyMatch(p -> p.contains("steps[2].dependsOn[0]") && p.contains("\"four\""))
                .anyMatch(p -> p.contains("cycle") && p.contains("one -> two -> one"));
    }
}
