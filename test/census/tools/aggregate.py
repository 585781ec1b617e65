import json, collections, os
d = json.load(open('raw.json'))
files = d['files']
# near-duplicates: same file name and >= 90% the same names (a copy edited in another course/fork)
kept, by_base = [], collections.defaultdict(list)
ndup = 0
for f in files:
    base = os.path.basename(f['path']).lower().replace('-checkpoint', '')
    s = set(f['names'])
    if any(len(s & t) >= 0.9 * max(len(s | t), 1) for t in by_base[base]):
        ndup += 1
        continue
    by_base[base].append(s)
    kept.append(f)
print('near dups', ndup, 'kept', len(kept), 'repos', len({f['repo'] for f in kept}))
agg = {}
for f in kept:
    for n in f['names']:
        a = agg.setdefault(n, {'files': 0, 'repos': set(), 'seen': []})
        a['files'] += 1
        a['repos'].add(f['repo'])
        if len(a['seen']) < 3:
            a['seen'].append([f['repo'], f['path'], f['commit']])
names = sorted(agg, key=lambda n: (-agg[n]['files'], n))
out = {'files': [{'repo': f['repo'], 'path': f['path'], 'commit': f['commit'],
                  'parsed_by': f['how']} for f in kept],
       'names': [{'name': n, 'files': agg[n]['files'], 'repos': len(agg[n]['repos']),
                  'seen_in': agg[n]['seen']} for n in names]}
json.dump(out, open('census.json', 'w'), indent=0, separators=(',', ':'))
print('names', len(names), '>=3:', sum(agg[n]['files'] >= 3 for n in names))
print(collections.Counter(f['repo'] for f in kept))
