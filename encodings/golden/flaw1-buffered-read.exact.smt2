; benchmark generated from rust API
(set-info :status unknown)
(declare-fun c0 () Int)
(declare-fun c2 () Int)
(declare-fun v3 () Bool)
(declare-fun v4 () Bool)
(declare-fun v5 () Bool)
(declare-fun v7 () Bool)
(declare-fun v6 () Bool)
(declare-fun v8 () Bool)
(declare-fun v9 () Bool)
(assert
 (> c0 3))
(assert
 (< c0 12))
(assert
 (> c2 9))
(assert
 (< c2 12))
(assert
 (let (($x17 (< c0 c2)))
 (let (($x16 (< c0 6)))
 (let (($x53 (not v3)))
 (or $x53 $x16 $x17)))))
(assert
 (let (($x17 (< c0 c2)))
 (let (($x69 (not v4)))
 (or $x69 $x17))))
(assert
 (let (($x17 (< c0 c2)))
 (let (($x73 (not $x17)))
 (let (($x72 (not v5)))
 (or $x72 $x73)))))
(assert
 (or v6 v7))
(assert
 (let (($x77 (not v8)))
 (or $x77 v7)))
(assert
 (let (($x77 (not v8)))
 (or $x77 v3 v4)))
(assert
 (let (($x82 (not v9)))
 (or $x82 v6)))
(assert
 (let (($x82 (not v9)))
 (or $x82 v5)))
(assert
 (let (($x87 (not v6)))
 (or $x87 v8)))
(assert
 (let (($x90 (not v7)))
 (or $x90 v9)))
(check-sat)
