package io.cyclium.retry;

import io.cyclium.actor.ExpectationDefinition;
import io.cyclium.episode.TriggerInfo;
import io.cyclium.runtime.ActorHost;
import io.cyclium.runtime.ActorRuntime;
import io.cyclium.runtime.FireRequest;
import io.cyclium.runtime.FireResult;
import io.cyclium.store.JsonText;
import java.util.Optional;

/**
 * Starts a retry through this node's actor runtime with the failed episode's own trigger (the
 * strategy sees the same payload) and scope; the breaker is respected, so an open circuit holds the
 * retry back until the claim lapses and a later tick tries again.
 */
final class RuntimeRetryLauncher implements RetryLauncher {

    private final ActorHost host;

    RuntimeRetryLauncher(ActorHost host) {
        this.host = host;
    }

    @Override
    public Launch launch(EpisodeRetryQueries.DueRetry failed, String dedupeKey) {
        Optional<ActorRuntime> rt = host.runtime(failed.actorId());
        if (rt.isEmpty()) {
            return new Launch(Kind.NOT_NOW, Optional.empty(), "actor " + failed.actorId() + " does not run on this node");
        }
        Optional<ExpectationDefinition> exp = rt.get().definition().expectation(failed.expectationId());
        if (exp.isEmpty()) {
            return new Launch(Kind.NOT_NOW, Optional.empty(),
                    "actor " + failed.actorId() + " has no expectation " + failed.expectationId());
        }
        TriggerInfo trigger = failed.triggerRef() == null ? new TriggerInfo(TriggerInfo.MANUAL, null, null, null, null)
                : TriggerInfo.fromJson(JsonText.parseObject(failed.triggerRef()));
        FireResult r = rt.get().fire(FireRequest.of(exp.get(), trigger, dedupeKey, false)
                .in(new ActorRuntime.Scope(failed.sourceStack(), failed.sourceEnv())));
        return switch (r.kind()) {
            case STARTED, QUEUED, DEFERRED -> new Launch(Kind.CREATED, Optional.of(r.episodeId()), null);
            case DUPLICATE -> new Launch(Kind.DUPLICATE, Optional.empty(), "attempt already has its episode");
            default -> new Launch(Kind.NOT_NOW, Optional.empty(), "not accepted here: " + r.kind());
        };
    }
}
