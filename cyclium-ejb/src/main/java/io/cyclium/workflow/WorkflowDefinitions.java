package io.cyclium.workflow;

import io.cyclium.audit.PendingAudit;
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
 * them from the database, so an instance started on one node advances on any other, and keeps
 * them in memory until a write through this node or the workflow timer's pulse (the rows' count
 * and version sum, see {@link #seen}) says they changed: the engine does not read a definition per
 * step, and an idle node does not read them every second. The parsed form is cached per document
 * text.
 */
public final class WorkflowDefinitions {

    public static final String CODE = "code";
    public static final String API = "api";

    private final Tx tx;
    private final WorkflowStore store;
    private final WorkflowQueries queries;
    private final Supplier<Collection<ActorDefinition>> actors;
    private final Map<String, WorkflowDefinition> parsed = new ConcurrentHashMap<>();
    /** Older versions instances still run, by "version:id"; immutable once stored. */
    private final Map<String, WorkflowDefinition> versions = new ConcurrentHashMap<>();

    public WorkflowDefinitions(Tx tx, WorkflowStore store, WorkflowQueries queries,
            Supplier<Collection<ActorDefinition>> actors) {
        this.tx = tx;
        this.store = store;
        this.queries = queries;
        this.actors = actors;
    }

    /**
     * Writes the code definitions (already checked at deploy); an operator's enabled flag stays. A
     * declaration that differs from the stored document becomes its next version; an unchanged one
     * stores nothing. Returns the version of each, by workflow id.
     */
    public Map<String, WorkflowStore.SavedDefinition> registerCode(List<WorkflowDefinition> defs) {
        Map<String, WorkflowStore.SavedDefinition> saved = new java.util.LinkedHashMap<>();
        for (WorkflowDefinition def : defs) {
            String document = WorkflowJson.write(def).toString();
            WorkflowStore.SavedDefinition s = null;
            // null: another node stored this definition between our read and write (nodes of one
            // deploy starting together); read again in a new transaction, where it is usually the same
            for (int attempt = 0; s == null && attempt < SAVE_ATTEMPTS; attempt++) {
                s = tx.inNewTransaction(em -> store.saveDefinition(em, def, document, CODE));
            }
            if (s == null) {
                throw new IllegalStateException("workflow " + def.id() + " could not be stored: other nodes changed it "
                        + SAVE_ATTEMPTS + " times while this one tried");
            }
            saved.put(def.id(), s);
            if (s.created()) {
                LOG.info("Workflow " + def.id() + ": its @Workflow declaration is stored as version " + s.version()
                        + "; instances started before keep running the version they started with");
            }
        }
        this.cache = null; // after the commit: a reload racing the write would keep the old rows
        return saved;
    }

    private static final int SAVE_ATTEMPTS = 5;
    private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger(WorkflowDefinitions.class.getName());

    /**
     * Stores a JSON definition under {@code id}: parsed and checked first, the first problem a 400
     * naming its field (the message lists every one). A definition from code cannot be replaced.
     */
    public WorkflowDefinition put(String id, JsonObject document) {
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
            WorkflowStore.SavedDefinition saved = store.saveDefinition(em, def, WorkflowJson.write(def).toString(), API);
            if (saved == null) {
                throw Problem.conflict("workflow " + id + " was changed by another request at the same time;"
                        + " read it again and repeat the PUT");
            }
            PendingAudit.detail((existing.isEmpty() ? "created" : saved.created() ? "replaced" : "unchanged")
                    + ", version " + saved.version());
            PendingAudit.recordIn(em);
        });
        this.cache = null;
        return def;
    }

    public void setEnabled(String id, boolean enabled) {
        int updated = tx.inNewTransaction(em -> {
            int changed = store.setEnabled(em, id, enabled);
            if (changed == 1) {
                PendingAudit.recordIn(em);
            }
            return changed;
        });
        this.cache = null;
        if (updated == 0) {
            throw Problem.notFound("no workflow " + id);
        }
    }

    /** A stored definition, whether or not enabled (running instances finish after a disable): from memory. */
    public Optional<WorkflowDefinition> find(String id) {
        return stored(id).map(this::parse);
    }

    /**
     * A stored version of a definition, the one an instance started with: the current one from
     * memory, an older one read once from {@code cyclium_workflow_definition_versions} and kept
     * (a version's document never changes, so it is never stale). Version 0: the current one.
     */
    public Optional<WorkflowDefinition> find(String id, long version) {
        if (version <= 0) {
            return find(id);
        }
        Optional<WorkflowQueries.StoredDefinition> current = stored(id);
        if (current.isPresent() && current.get().documentVersion() == version) {
            return Optional.of(parse(current.get()));
        }
        String key = version + ":" + id;
        WorkflowDefinition old = versions.get(key);
        if (old != null) {
            return Optional.of(old);
        }
        Optional<WorkflowDefinition> read = tx.inNewTransaction(em -> queries.definitionVersion(em, id, version))
                .map(v -> WorkflowJson.parse(JsonText.parseObject(v.document())).withVersion(version));
        if (read.isPresent()) {
            if (versions.size() > 1_000) {
                versions.clear(); // many old versions in flight at once: keep the cache small
            }
            versions.put(key, read.get());
        }
        return read;
    }

    /** Every stored version of a definition, newest first, read from the database (the API and console). */
    public List<WorkflowQueries.DefinitionVersion> versions(String id) {
        return tx.inNewTransaction(em -> queries.definitionVersions(em, id));
    }

    /**
     * A stored definition from memory. One this node has not seen (stored on another node since
     * the last {@link #pulse}) is looked for in the database at once, at most once per
     * {@link #MISS_READ_NANOS}: an instance of a workflow just PUT on another node advances here.
     */
    public Optional<WorkflowQueries.StoredDefinition> stored(String id) {
        Known k = knownNow();
        WorkflowQueries.StoredDefinition d = k.byId().get(id);
        if (d == null && System.nanoTime() - k.readAtNanos() > MISS_READ_NANOS) {
            d = reload().byId().get(id);
        }
        return Optional.ofNullable(d);
    }

    /** Every stored definition, read from the database (the console and the API: always the latest). */
    public List<WorkflowQueries.StoredDefinition> all() {
        return reload().list();
    }

    /** Every stored definition, from memory (the timer's schedule ticks). */
    public List<WorkflowQueries.StoredDefinition> known() {
        return knownNow().list();
    }

    /** The enabled definitions, from memory: every stored event asks which workflows it starts. */
    public List<WorkflowDefinition> enabled() {
        return knownNow().enabled();
    }

    /**
     * Tells the cache what the database holds now ({@link WorkflowQueries#pulse}, read by the
     * workflow timer on every node): a count or a version sum other than the one read with the
     * cached definitions means a definition was added or written on some node, and the next use
     * reads them all again. Returns whether it changed.
     */
    public boolean seen(WorkflowQueries.DefinitionsSeen now) {
        Known k = cache;
        if (k != null && !k.seen().equals(now)) {
            cache = null;
            return true;
        }
        return false;
    }

    /** How soon after reading them an unknown id makes this node read the definitions again. */
    static final long MISS_READ_NANOS = 1_000_000_000L;

    private record Known(long readAtNanos, WorkflowQueries.DefinitionsSeen seen, List<WorkflowQueries.StoredDefinition> list,
            Map<String, WorkflowQueries.StoredDefinition> byId, List<WorkflowDefinition> enabled) {
    }

    private volatile Known cache;

    private Known knownNow() {
        Known k = cache;
        return k != null ? k : reload();
    }

    private Known reload() {
        // the fingerprint first: a write between the two reads makes the next pulse read them again
        Known k = tx.inNewTransaction(em -> {
            WorkflowQueries.DefinitionsSeen seen = queries.definitionsSeen(em);
            List<WorkflowQueries.StoredDefinition> list = queries.definitions(em);
            Map<String, WorkflowQueries.StoredDefinition> byId = new java.util.HashMap<>();
            list.forEach(d -> byId.put(d.workflowId(), d));
            return new Known(System.nanoTime(), seen, list, Map.copyOf(byId),
                    list.stream().filter(WorkflowQueries.StoredDefinition::enabled).map(this::parse).toList());
        });
        cache = k;
        return k;
    }

    public WorkflowDefinition parse(WorkflowQueries.StoredDefinition stored) {
        if (parsed.size() > 1_000) {
            parsed.clear(); // documents replaced many times over: keep the cache small
        }
        return parsed.computeIfAbsent(stored.document(), doc -> WorkflowJson.parse(JsonText.parseObject(doc)))
                .withVersion(stored.documentVersion());
    }
}
