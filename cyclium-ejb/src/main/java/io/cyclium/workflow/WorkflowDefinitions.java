package io.cyclium.workflow;

import io.cyclium.actor.ActorDefinition;
import io.cyclium.problem.Problem;
import io.cyclium.store.JsonText;
import io.cyclium.store.Tx;
import jakarta.json.JsonObject;
import jakarta.persistence.EntityManager;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The stored definitions: code ones written at deploy, JSON ones through the API. Every node reads
 * them from the database, so an instance started on one node advances on any other; the parsed
 * form is cached per document text.
 */
public final class WorkflowDefinitions {

    public static final String CODE = "code";
    public static final String API = "api";

    private final Tx tx;
    private final WorkflowStore store;
    private final WorkflowQueries queries;
    private final Supplier<Collection<ActorDefinition>> actors;
    private final Map<String, WorkflowDefinition> parsed = new ConcurrentHashMap<>();

    public WorkflowDefinitions(Tx tx, WorkflowStore store, WorkflowQueries queries,
            Supplier<Collection<ActorDefinition>> actors) {
        this.tx = tx;
        this.store = store;
        this.queries = queries;
        this.actors = actors;
    }

    /** Writes the code definitions (already checked at deploy); an operator's enabled flag stays. */
    public void registerCode(List<WorkflowDefinition> defs) {
        this.enabled = null;
        for (WorkflowDefinition def : defs) {
            tx.run(em -> store.saveDefinition(em, def, WorkflowJson.write(def).toString(), CODE));
        }
    }

    /**
     * Stores a JSON definition under {@code id}: parsed and checked first, the first problem a 400
     * naming its field (the message lists every one). A definition from code cannot be replaced.
     */
    public WorkflowDefinition put(String id, JsonObject document) {
        this.enabled = null;
        WorkflowDefinition def = WorkflowJson.parse(document);
        if (!def.id().equals(id)) {
            throw Problem.invalid("id", "the body's id \"" + def.id() + "\" is not the id in the path, \"" + id + "\"");
        }
        List<WorkflowValidation.Issue> issues = WorkflowValidation.check(def, actors.get());
        if (!issues.isEmpty()) {
            throw Problem.invalid(issues.get(0).field(), "workflow " + id + " is invalid: " + String.join("; ",
                    issues.stream().map(WorkflowValidation.Issue::toString).toList()));
        }
        tx.run(em -> {
            Optional<WorkflowQueries.StoredDefinition> existing = queries.definition(em, id);
            if (existing.isPresent() && CODE.equals(existing.get().origin())) {
                throw Problem.conflict("workflow " + id + " is declared in code (@Workflow); change it there");
            }
            store.saveDefinition(em, def, WorkflowJson.write(def).toString(), API);
        });
        return def;
    }

    public void setEnabled(String id, boolean enabled) {
        this.enabled = null;
        if (tx.inNewTransaction(em -> store.setEnabled(em, id, enabled)) == 0) {
            throw Problem.notFound("no workflow " + id);
        }
    }

    /** A stored definition, whether or not enabled (running instances finish after a disable). */
    public Optional<WorkflowDefinition> find(String id) {
        return tx.inNewTransaction(em -> queries.definition(em, id)).map(this::parse);
    }

    public Optional<WorkflowQueries.StoredDefinition> stored(String id) {
        return tx.inNewTransaction(em -> queries.definition(em, id));
    }

    public List<WorkflowQueries.StoredDefinition> all() {
        return tx.inNewTransaction((EntityManager em) -> queries.definitions(em));
    }

    /** How long {@link #enabled()} answers from memory: a change made on another node shows within this. */
    static final long FRESH_FOR_NANOS = 2_000_000_000L;

    private record Enabled(long readAtNanos, List<WorkflowDefinition> definitions) {
    }

    private volatile Enabled enabled;

    /**
     * The enabled definitions, read from the database at most once per {@link #FRESH_FOR_NANOS}
     * (and at once after a change through this node): every stored event asks which workflows it
     * starts, and a read per event cost a transaction per episode.
     */
    public List<WorkflowDefinition> enabled() {
        Enabled e = enabled;
        long now = System.nanoTime();
        if (e == null || now - e.readAtNanos() > FRESH_FOR_NANOS) {
            e = new Enabled(now, all().stream().filter(WorkflowQueries.StoredDefinition::enabled).map(this::parse).toList());
            enabled = e;
        }
        return e.definitions();
    }

    public WorkflowDefinition parse(WorkflowQueries.StoredDefinition stored) {
        if (parsed.size() > 1_000) {
            parsed.clear(); // documents replaced many times over: keep the cache small
        }
        return parsed.computeIfAbsent(stored.document(), doc -> WorkflowJson.parse(JsonText.parseObject(doc)));
    }
}
