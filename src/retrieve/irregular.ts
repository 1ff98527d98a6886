// English words whose forms a suffix stemmer cannot join: irregular verbs (win / won, teach /
// taught, write / wrote / written) and irregular plurals (child / children). The index stems with
// Porter, which makes "winning" and "win" one term but leaves "won" apart, so a question asking
// what someone won would miss "we even won a trophy" unless the query carries every form.
// Forms that are also common words of another meaning are left out (saw, left, rose, fell, lay,
// lit, bit, shot, stuck, tear, spring, ground, wound, bore, lives, leaves), and so are verbs whose
// forms are stopwords (be, have, do, go, get): the extra terms widen a query, not drift it.

const GROUPS = `arise arose arisen|awake awoke awoken|beat beaten|become became|begin began begun|bend bent
bite bitten|bleed bled|blow blew blown|break broke broken|breed bred|bring brought|build built
burn burnt|buy bought|catch caught|choose chose chosen|come came|creep crept|deal dealt|dig dug
draw drew drawn|dream dreamt|drink drank drunk|drive drove driven|eat ate eaten|feed fed|feel felt
fight fought|find found|flee fled|fly flew flown|forbid forbade forbidden|forget forgot forgotten
forgive forgave forgiven|freeze froze frozen|give gave given|grow grew grown|hang hung|hear heard
hide hid hidden|hold held|keep kept|kneel knelt|know knew known|lead led|lean leant|leap leapt
learn learnt|lend lent|lose lost|make made|mean meant|meet met|pay paid|prove proven
ride rode ridden|ring rang rung|run ran|say said|see seen|seek sought|sell sold|send sent|sew sewn
shake shook shaken|shine shone|show shown|shrink shrank shrunk|sing sang sung|sink sank sunk
sit sat|sleep slept|slide slid|speak spoke spoken|speed sped|spend spent|spin spun|spit spat
stand stood|steal stole stolen|sting stung|stink stank|strike struck
swear swore sworn|sweep swept|swim swam swum|swing swung|take took taken|teach taught
tell told|think thought|throw threw thrown|understand understood|wake woke woken|wear wore worn
weave wove woven|weep wept|win won|write wrote written
child children|person people|man men|woman women|tooth teeth|foot feet|mouse mice|goose geese
wife wives|knife knives|half halves|wolf wolves|shelf shelves|thief thieves|calf calves`;

let byForm: Map<string, readonly string[]> | undefined;

/** The other forms of `word` (lowercase), or none. */
export function otherForms(word: string): readonly string[] {
  if (!byForm) {
    byForm = new Map();
    for (const group of GROUPS.split(/[|\n]/)) {
      const forms = group.trim().split(' ');
      for (const f of forms) byForm.set(f, forms.filter((x) => x !== f));
    }
  }
  return byForm.get(word) ?? [];
}
