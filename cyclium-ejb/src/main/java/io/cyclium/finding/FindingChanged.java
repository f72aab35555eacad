package io.cyclium.finding;

/**
 * CDI event fired after a raise, update or clear has committed (never before, so an observer that
 * reads the finding sees it). Fired on the node that made the change only. Expiry by the sweep
 * fires none: no episode cleared those findings.
 *
 * @param episodeId the episode that raised, updated or cleared it (null when there was none)
 */
public record FindingChanged(FindingOutcome.Kind kind, String findingId, String findingKey, String findingClass,
        String env, String episodeId, Severity severity) {

    static FindingChanged of(FindingOutcome outcome, String episodeId) {
        return new FindingChanged(outcome.kind(), outcome.findingId(), outcome.findingKey(), outcome.findingClass(),
                outcome.env(), episodeId, outcome.severity());
    }
}
