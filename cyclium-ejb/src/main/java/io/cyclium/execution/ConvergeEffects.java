package io.cyclium.execution;

import io.cyclium.keys.EpisodeRef;

import io.cyclium.finding.FindingAction;
import io.cyclium.output.OutputProposal;
import java.time.Duration;

/**
 * The side effects a converging episode makes after its fence check: findings and outputs. The
 * task journals each outcome.
 */
public interface ConvergeEffects {

    /** Applies a finding action; {@code journalKind} is finding_raised/updated/cleared, or null when nothing changed. */
    Effect applyFinding(FindingAction action, EpisodeRef episode, Duration defaultTtl);

    /**
     * Routes an output through its exactly-once gate. {@code resumedRun}: this run continues an
     * episode an earlier run started, so a {@code proposed} output of the episode is that run's
     * unfinished delivery and is delivered again under its key.
     */
    Effect deliver(OutputProposal proposal, EpisodeRef episode, boolean resumedRun);

    /**
     * @param ok          false when the effect failed (counts toward partially_failed / failed)
     * @param journalKind the journal entry to write, or null for none
     * @param key         the finding key or output dedupe key
     * @param detail      what to journal
     */
    record Effect(boolean ok, String journalKind, String key, jakarta.json.JsonObject detail) {
    }
}
