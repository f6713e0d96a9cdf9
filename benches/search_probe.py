#!/usr/bin/env python3
# The low-overlap probe of benches/README.md ("Fourth pass"), built from a
# corpus's TUNE half only: each tune intent question with the words its
# expected learning holds removed (the words of a KG synonym the question
# names are kept; with KEEP=1, the first shared word too). It gives tune
# data the shape of a paraphrase that shares one word or none with its
# learning, which our corpora lack.
#   benches/search_probe.py DIR QUERIES OUT KEEP
# DIR is a learnings dir (`search.sh`'s corpus, or `search_eval blind`'s
# output); OUT gets one query a line, split "tune", for `search_eval eval`
# or `dump`. Standard library only.
import json,os,re,sys,glob
corpus,qfile,out,keep=sys.argv[1],sys.argv[2],sys.argv[3],int(sys.argv[4])
STOP=set("a an the and or of to in on for with is are be it my i do how what why when not no this that at by from can cannot can't won't will does doesn't did as so but if then there here our we you your me".split())
def words(t): return re.findall(r"[a-z0-9][a-z0-9_.+-]*[a-z0-9]|[a-z0-9]",t.lower())
def stem(w):
    for suf in ("ing","ed","es","s"):
        if w.endswith(suf) and len(w)-len(suf)>=3: return w[:-len(suf)]
    return w
syn=[]
for f in glob.glob(f'{corpus}/kg/*.md'):
    syn.append(os.path.basename(f)[:-3].replace('-',' '))
    for l in open(f):
        if l.lower().startswith('synonyms::'):
            syn+= [s.strip().lower() for s in l.split('::',1)[1].split(',') if s.strip()]
text={}
for f in glob.glob(f'{corpus}/*/*.md'):
    if '/kg/' in f: continue
    t=open(f).read(); m=re.search(r'^id: (\S+)',t,re.M)
    if m:
        head=t.split('\n---',2)
        text[m.group(1)]=head[0] if len(head)>1 else t
lk=0
sink=open(out,'w')
for l in open(qfile):
    q=json.loads(l)
    if q.get('split')!='tune' or q['kind']!='intent' or q['expect'] not in text: continue
    held={stem(w) for w in words(text[q['expect']])}
    ql=q['q'].lower()
    synw={stem(w) for s in syn if re.search(r'\b'+re.escape(s)+r'\b',ql) for w in words(s)}
    kept=[];shared=0
    for w in q['q'].split():
        ws=[stem(x) for x in words(w)]
        if ws and all(x in held and x not in STOP and x not in synw for x in ws):
            shared+=1
            if shared<=keep: kept.append(w)
            continue
        kept.append(w)
    if shared==0: continue
    q['q']=' '.join(kept); lk+=1
    print(json.dumps(q),file=sink)
sink.close()
print(f'{lk} probe questions', file=sys.stderr)
