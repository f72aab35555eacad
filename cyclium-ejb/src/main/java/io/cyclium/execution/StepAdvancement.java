package io.cyclium.execution;

import io.cyclium.episode.EpisodeFinished;
import jakarta.persistence.EntityManager;
import java.util.Optional;

/**
 * What the terminal write of a workflow step's episode also does in its own transaction: record the
 * step's outcome, advance the instance and store the next steps' episodes (the workflow engine's,
 * set by the workflow package; this package only calls it). So "step done" and "next step stored"
 * commit together or not at all: a node that dies between them cannot exist.
 *
 * <p>The call runs inside a transaction other tasks' writes may share (group commit), and may run
 * more than once: a failed batch, a deadlock victim or a lost commit answer runs the whole terminal
 * write again, and nothing of an earlier run stands unless it committed. So it re-reads whatever it
 * decides on in {@code em}, takes its locks there, and keeps every effect outside the database —
 * starting a task, asking an episode to stop, waking a timer — for the returned action, which the
 * caller runs once, only after the transaction committed.
 */
@FunctionalInterface
public interface StepAdvancement {

    /**
     * Records {@code finished}'s step and advances its instance in {@code em}. Empty when it did
     * not (no workflow step, or one this node cannot advance, such as a workflow not defined here):
     * the terminal event then goes to the engine after the commit, as before.
     */
    Optional<Runnable> inTerminalWrite(EntityManager em, EpisodeFinished finished);

    /**
     * Whether a step's terminal write calls this at all. When it does not, that write stays an
     * ordinary one, in the group commit's shared batch, and the step advances after the commit
     * from its terminal event (cyclium.workflow.advance-in-commit=false; true is the default).
     */
    default boolean advances() {
        return this != NONE;
    }

    /** Advances nothing in the terminal write (tests, tools, a node without workflows). */
    StepAdvancement NONE = (em, finished) -> Optional.empty();
}
