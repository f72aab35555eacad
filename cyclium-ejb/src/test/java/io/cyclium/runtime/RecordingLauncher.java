package io.cyclium.runtime;

import io.cyclium.execution.EpisodeLauncher;

import io.cyclium.claims.HeldClaim;
import io.cyclium.episode.DebouncedTrigger;
import io.cyclium.episode.NewEpisode;
import io.cyclium.episode.RunSnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.function.Consumer;

/**
 * Stands for the database and the executor behind {@link ActorRuntime}: records what was inserted,
 * started and cancelled, and runs nothing. The real launcher is covered by the integration tests.
 */
class RecordingLauncher implements EpisodeLauncher {

    record Start(String episodeId, RunSnapshot given, boolean resume, HeldClaim handedClaim) {
    }

    final List<NewEpisode> inserted = new ArrayList<>();
    final List<Start> started = new ArrayList<>();
    final List<String> cancelled = new ArrayList<>();
    final List<HeldClaim> released = new ArrayList<>();
    final List<String> marked = new ArrayList<>();
    final List<NewEpisode> deferred = new ArrayList<>();
    final List<DebouncedTrigger> debounced = new ArrayList<>();
    private boolean keyTaken;
    private boolean holding;
    private final List<Consumer<Boolean>> held = new ArrayList<>();
    private RuntimeException insertFailure;

    /** From now on every insert finds its dedupe key taken (another node won it), until {@link #keysFree()}. */
    void keysTaken() {
        keyTaken = true;
    }

    void keysFree() {
        keyTaken = false;
    }

    /** The next insert throws {@code failure}, as a database error would. */
    void failNextInsert(RuntimeException failure) {
        insertFailure = failure;
    }

    @Override
    public boolean defer(NewEpisode episode, Consumer<Boolean> settled) {
        if (keyTaken) {
            settled(settled, false);
            return false;
        }
        deferred.add(episode);
        settled(settled, true);
        return true;
    }

    @Override
    public boolean insert(NewEpisode episode, Consumer<Boolean> settled) {
        if (insertFailure != null) {
            RuntimeException failure = insertFailure;
            insertFailure = null;
            settled.accept(false);
            throw failure;
        }
        if (keyTaken) {
            settled(settled, false);
            return false;
        }
        inserted.add(episode);
        settled(settled, true);
        return true;
    }

    private void settled(Consumer<Boolean> settled, boolean ours) {
        if (holding) {
            held.add(ours ? settled : committed -> settled.accept(false));
        } else {
            settled.accept(ours);
        }
    }

    /** From now on inserts happen in a caller's transaction that stays open until {@link #commitHeld} or {@link #rollBackHeld}. */
    void holdCommits() {
        holding = true;
    }

    /** The caller's transaction commits: every held insert is settled as committed. */
    void commitHeld() {
        holding = false;
        List<Consumer<Boolean>> now = new ArrayList<>(held);
        held.clear();
        now.forEach(c -> c.accept(true));
    }

    /** The caller's transaction rolls back: every held insert is gone. */
    void rollBackHeld() {
        holding = false;
        List<Consumer<Boolean>> now = new ArrayList<>(held);
        held.clear();
        now.forEach(c -> c.accept(false));
        inserted.clear();
        deferred.clear();
    }

    @Override
    public void debounce(DebouncedTrigger trigger) {
        debounced.add(trigger);
    }

    @Override
    public void start(String episodeId, RunSnapshot given, boolean resume, HeldClaim handedClaim, Runnable exited) {
        started.add(new Start(episodeId, given, resume, handedClaim));
    }

    @Override
    public void releaseClaim(HeldClaim claim, String why) {
        released.add(claim);
    }

    @Override
    public void markQueued(String episodeId) {
        marked.add(episodeId);
    }

    @Override
    public void cancelQueued(String episodeId) {
        cancelled.add(episodeId);
    }

    List<String> startedIds() {
        return started.stream().map(Start::episodeId).toList();
    }

    List<String> insertedKeys() {
        return inserted.stream().map(NewEpisode::dedupeKey).toList();
    }

    NewEpisode episode(String id) {
        return inserted.stream().filter(e -> e.id().equals(id)).findFirst()
                .orElseThrow(() -> new NoSuchElementException("no episode " + id + " was inserted"));
    }
}
