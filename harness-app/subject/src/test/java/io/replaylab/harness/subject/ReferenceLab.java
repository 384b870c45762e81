package io.replaylab.harness.subject;

import io.replaylab.harness.lab.LabSettings;

/** Settings for a lab run on the reference subject: what the CLI passes when it is given no subject of another kind. */
public final class ReferenceLab {
    private ReferenceLab() {
    }

    public static LabSettings.Builder settings() {
        return LabSettings.custom().subject(ReferenceSubject.consume()).transformSubject(ReferenceSubject.transform()).shareSubject(ReferenceSubject.shareConsume());
    }
}
